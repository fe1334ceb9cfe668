"""HTTP routes of analytics (4.10): four GETs under /api/client/[clientId]/analytics, and the dashboard page's two."""

import flask

from ..core import auth, http, openapi
from ..core.openapi import ID_TOKEN, error
from . import models, service
from .models import RangeQuery
from .responses import AnalyticsClients, AnalyticsPageConfig, AssessmentCounts, EngagementInsights, FunctionalTests, Overview

app = http.create_app("analytics")
api = openapi.Api(app, "Analytics")

DENIED = (
    error(401, "Missing, invalid or expired ID token (a client token is not one), or a disabled user."),
    error(403, "Not an administrator (standard user tokens are refused), an admin of another client, or analytics "
               "off for the client (modules.analytics; platform administrators see every client)."),
    error(404, "Client not found (platform administrators)."),
)
BAD_RANGE = error(400, "A malformed date, one date without the other, startDate after endDate, or more than "
                       f"{models.MAX_RANGE_DAYS} days.")
PREFIX = "/api/client/<client_id>/analytics"
SCOPE = ("Administrators of the client, and platform administrators on any client. For the operator tenant the "
         "figures are every client's (the platform's broad view); for any other client, its own members'.")


def _scope(client_id: str) -> service.Scope:
    return service.scope(auth.require_user(), client_id)


def _window() -> models.Window:
    return models.query_window(flask.request.args.to_dict(flat=True))


@api.get(f"{PREFIX}/overview", operation_id="getAnalyticsOverview", summary="Linked players, fall risk and ages",
         description="The client's linked players now: by the level of their latest completed fall-risk result, "
                     "needing urgent attention, by age group, their average age and the share who completed an "
                     "assessment. " + SCOPE,
         security=[ID_TOKEN], sample_as="ADMIN_ID_TOKEN", responses={200: Overview}, errors=DENIED)
def overview(client_id: str):
    return service.overview(_scope(client_id))


@api.get(f"{PREFIX}/engagement-insights", operation_id="getEngagementInsights",
         summary="Activity per module, and active users per day",
         description="Lifetime totals, or with startDate and endDate the activity of those days (UTC, inclusive). "
                     "activeUsers counts each user once over the whole range. dailyBreakdown has every day of the "
                     "range (the last 30 without one), zeros on idle days. Modules the platform does not have "
                     "(aiNutrition, waterIntake, aiTraining, nutrition) report zeros. " + SCOPE,
         security=[ID_TOKEN], sample_as="ADMIN_ID_TOKEN", query=RangeQuery, responses={200: EngagementInsights},
         errors=[BAD_RANGE, *DENIED])
def engagement_insights(client_id: str):
    scope = _scope(client_id)
    return service.engagement(scope, _window())


@api.get(f"{PREFIX}/assessment-counts", operation_id="getAssessmentCounts",
         summary="Assessments by completion state, origin and client",
         description="Assessments created in the range (lifetime without one) by where they stand now: completed, "
                     "in progress or not started, by origin (app, clinician, partner) and by client. The platform "
                     "runs fall-risk assessments; cognitive and msk report zeros. " + SCOPE,
         security=[ID_TOKEN], sample_as="ADMIN_ID_TOKEN", query=RangeQuery, responses={200: AssessmentCounts},
         errors=[BAD_RANGE, *DENIED])
def assessment_counts(client_id: str):
    scope = _scope(client_id)
    return service.assessment_counts(scope, _window())


@api.get(f"{PREFIX}/functional-tests", operation_id="getFunctionalTests",
         summary="Functional-test averages by age group",
         description="The fall-risk results completed in the range (lifetime without one), averaged per 2.14 age "
                     "group of the participant at completion: chair stands, tandem and single-leg stance seconds, "
                     "tandem-walk steps. " + SCOPE,
         security=[ID_TOKEN], sample_as="ADMIN_ID_TOKEN", query=RangeQuery, responses={200: FunctionalTests},
         errors=[BAD_RANGE, *DENIED])
def functional_tests(client_id: str):
    scope = _scope(client_id)
    return service.functional_tests(scope, _window())


@api.get("/api/analytics/clients", operation_id="listAnalyticsClients", summary="Clients the dashboard may show",
         description="Every client for platform administrators (the dashboard's client picker), by id, at most "
                     f"{models.MAX_PICKER_CLIENTS:,} (truncated is then true); the caller's own for a client's "
                     "administrator.",
         security=[ID_TOKEN], sample_as="PLATFORM_ADMIN_ID_TOKEN", responses={200: AnalyticsClients},
         errors=[DENIED[0], error(403, "Not an administrator.")])
def clients():
    return service.viewable_clients(auth.require_user())


@api.get("/api/analytics/config", operation_id="getAnalyticsPageConfig",
         summary="The dashboard page's Firebase sign-in settings",
         description="The project's public Firebase web settings, and the Auth emulator's URL when the stack runs "
                     "on the emulators. No credentials.",
         responses={200: AnalyticsPageConfig})
def page_config():
    return service.page_config()

"""What analytics answers with (2.14, and the shapes designed here where 4.10 says "not shown")."""

from pydantic import ConfigDict, Field

from ..core.openapi import Closed
from .models import MAX_PICKER_CLIENTS


class AnalyticsMetadata(Closed):
    generatedAt: str
    queryClientId: str
    isGofaAdmin: bool = Field(description="True when the caller is a platform administrator.")
    linkedPlayers: int = Field(description="The client's linked players: active members with the player role "
                                           "(every client's, for the operator tenant).")
    startDate: str | None = Field(description="The range's first day; null for lifetime totals.")
    endDate: str | None


class RiskDistribution(Closed):
    level1: int
    level2: int
    level3: int
    level4: int


class AgeDistribution(Closed):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    age30to39: int = Field(alias="30-39")
    age40to49: int = Field(alias="40-49")
    age50to59: int = Field(alias="50-59")
    age60to69: int = Field(alias="60-69")
    age70to79: int = Field(alias="70-79")
    age80to89: int = Field(alias="80-89")
    age90plus: int = Field(alias="90+")


class Overview(Closed):
    totalLinkedPlayers: int
    highRiskCount: int = Field(description="Linked players whose latest fall-risk level is 4 (high).")
    averageAge: float = Field(description="Mean age in years (one decimal) of the linked players with a date of "
                                          "birth; 0 when none has one.")
    urgentAttentionCount: int = Field(description="Linked players whose latest fall-risk result needs urgent "
                                                  "attention.")
    riskDistribution: RiskDistribution = Field(description="Linked players by the level of their latest completed "
                                                           "fall-risk result.")
    ageDistribution: AgeDistribution = Field(description="Linked players by age today; under 30 in no group.")
    assessmentCompletionRate: float = Field(description="Percent (one decimal) of linked players with at least one "
                                                        "completed fall-risk assessment.")
    metadata: AnalyticsMetadata


class LessonsEngagement(Closed):
    activeUsers: int
    totalPlays: int
    completedPlays: int


class AiMoveEngagement(Closed):
    activeUsers: int
    totalSessions: int
    completedSessions: int
    totalReps: int


class AiNutritionEngagement(Closed):
    activeUsers: int
    totalFoodLogs: int
    totalPlans: int
    totalChatSessions: int


class WaterIntakeEngagement(Closed):
    activeUsers: int
    totalLogs: int
    totalAmountMl: int


class WellnessChatEngagement(Closed):
    activeUsers: int
    totalChats: int
    totalMessages: int


class VitalScanEngagement(Closed):
    activeUsers: int
    totalScans: int
    completedScans: int


class EngagementDay(Closed):
    date: str
    aiMove: int
    aiTraining: int
    lessons: int
    nutrition: int
    waterIntake: int
    wellnessChat: int
    vitalScan: int


class EngagementInsights(Closed):
    success: bool
    lessons: LessonsEngagement
    aiMove: AiMoveEngagement
    aiNutrition: AiNutritionEngagement
    waterIntake: WaterIntakeEngagement
    wellnessChat: WellnessChatEngagement
    vitalScan: VitalScanEngagement
    dailyBreakdown: list[EngagementDay] = Field(description="Active users of each module per UTC day: every day of "
                                                            "the range, or of the last 30 days without one.")
    metadata: AnalyticsMetadata


class AssessmentStates(Closed):
    total: int
    completed: int
    inProgress: int
    notStarted: int


class AssessmentKind(AssessmentStates):
    byOrigin: dict[str, AssessmentStates] = Field(description="app, clinician and partner.")


class AssessmentKinds(Closed):
    fallRisk: AssessmentKind
    cognitive: AssessmentKind
    msk: AssessmentKind


class ClientAssessments(Closed):
    clientId: str
    name: str
    fallRisk: AssessmentStates
    cognitive: AssessmentStates
    msk: AssessmentStates


class AssessmentCounts(Closed):
    success: bool
    totals: AssessmentStates
    assessments: AssessmentKinds
    byClient: list[ClientAssessments]
    metadata: AnalyticsMetadata


class FunctionalAverages(Closed):
    chairStands: float | None = Field(description="Full stands in the 30-second chair stand.")
    tandemStanceSeconds: float | None
    singleLegStanceSeconds: float | None
    tandemWalkSteps: float | None


class FunctionalAgeGroup(Closed):
    ageGroup: str
    results: int
    averages: FunctionalAverages


class FunctionalOverall(Closed):
    results: int
    averages: FunctionalAverages


class FunctionalTests(Closed):
    success: bool
    ageGroups: list[FunctionalAgeGroup]
    overall: FunctionalOverall
    ungroupedResults: int = Field(description="Completed results of participants under 30 or without a date of "
                                              "birth, in no age group.")
    metadata: AnalyticsMetadata


class AnalyticsClient(Closed):
    clientId: str
    name: str
    isOperator: bool
    analytics: bool


class AnalyticsClients(Closed):
    clients: list[AnalyticsClient] = Field(description=f"By clientId; at most {MAX_PICKER_CLIENTS:,}.")
    truncated: bool = Field(description="More clients exist than the list holds (platform administrators).")


class FirebaseWebConfig(Closed):
    apiKey: str
    authDomain: str
    projectId: str


class AnalyticsPageConfig(Closed):
    firebase: FirebaseWebConfig
    authEmulatorUrl: str | None

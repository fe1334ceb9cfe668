"""`fallrisk rules`: the fall-risk scoring rules of a version, as the API serves them."""


def fallrisk_rules(args) -> dict:
    from ...fall_risk import rules
    from ..cli import CliError

    ruleset = rules.RULESETS.get(args.version or rules.CURRENT.version)
    if ruleset is None:
        raise CliError(f"unknown rules version {args.version} (known: {', '.join(rules.RULESETS)})")
    return {**rules.describe(ruleset), "current": ruleset is rules.CURRENT}


def register(groups) -> None:
    fallrisk = groups.add_parser("fallrisk", help="fall-risk assessments").add_subparsers(dest="command", required=True)
    p = fallrisk.add_parser("rules", help="the scoring rules (questionnaire, thresholds) of a version")
    p.add_argument("--version", help="a rules version (default: the current one)")
    p.set_defaults(handler=fallrisk_rules)

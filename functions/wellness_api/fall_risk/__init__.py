"""Fall risk (spec 4.3): assessments scored by the CDC STEADI protocol, and the Fall Risk Results API."""

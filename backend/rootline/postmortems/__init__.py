"""The postmortem of an incident: drafted from what Rootline knows, edited and published by the team."""

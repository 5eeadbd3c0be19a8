"""Action items: what the team will do about an incident, from a remedy to a verified fix."""

"""The capture action: agent sessions into the diary, from the app (issue 16)."""

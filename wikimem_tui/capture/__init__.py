"""The capture action: agent sessions into the diary, from the app (SPEC §8)."""

"""The phone over ADB: capture, hierarchy, apps, input, device watch."""

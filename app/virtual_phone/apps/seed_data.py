"""Made-up people, conversations, notes and alarms the phone starts with (555-01xx numbers are fictional)."""

from __future__ import annotations

CONTACTS: list[tuple[str, str]] = [
    ("Aisha Khan", "(555) 010-2381"),
    ("Alex Morgan", "(555) 010-4417"),
    ("Ben Carter", "(555) 010-9902"),
    ("Carlos Mendez", "(555) 010-3345"),
    ("Chloe Dubois", "(555) 010-7718"),
    ("Daniel Kim", "(555) 010-6620"),
    ("Dev Patel", "(555) 010-1297"),
    ("Elena Petrova", "(555) 010-5534"),
    ("Emma Thompson", "(555) 010-8841"),
    ("Fatima Al-Sayed", "(555) 010-2209"),
    ("Grace Liu", "(555) 010-4473"),
    ("Hannah Schmidt", "(555) 010-9015"),
    ("Isaac Newton", "(555) 010-1642"),
    ("Jack Wilson", "(555) 010-3368"),
    ("Julia Rossi", "(555) 010-7750"),
    ("Kenji Tanaka", "(555) 010-2836"),
    ("Laura Bennett", "(555) 010-6194"),
    ("Liam O'Brien", "(555) 010-4059"),
    ("Maria Garcia", "(555) 010-8127"),
    ("Mom", "(555) 010-0001"),
    ("Noah Fischer", "(555) 010-5582"),
    ("Olivia Brown", "(555) 010-3906"),
    ("Priya Sharma", "(555) 010-7263"),
    ("Quinn Taylor", "(555) 010-1180"),
    ("Rachel Green", "(555) 010-9437"),
    ("Samuel Okafor", "(555) 010-6655"),
    ("Sofia Lopez", "(555) 010-2974"),
    ("Tom Becker", "(555) 010-8310"),
    ("Yuki Sato", "(555) 010-5049"),
    ("Zoe Martin", "(555) 010-7392"),
]


def email_for(name: str) -> str:
    parts = [p for p in name.lower().replace("'", "").replace("-", "").split() if p]
    return ".".join(parts) + "@example.com"


# name → list of (from_me, body, time label)
CONVERSATIONS: dict[str, list[tuple[bool, str, str]]] = {
    "Emma Thompson": [
        (False, "Hey! Are we still on for lunch tomorrow?", "Yesterday"),
        (True, "Yes! 12:30 at the usual place?", "Yesterday"),
        (False, "Perfect, see you there", "10:24 AM"),
    ],
    "Mom": [
        (False, "Did you remember to call your aunt?", "Mon"),
        (True, "Not yet, I will tonight", "Mon"),
        (False, "Thanks sweetie. Love you", "Mon"),
    ],
    "Daniel Kim": [
        (True, "Can you send me the slides from today?", "Sun"),
        (False, "Sure, just emailed them to you", "Sun"),
    ],
    "(555) 010-0199": [
        (False, "Your verification code is 482913. Do not share it with anyone.", "Sat"),
    ],
}

NOTES: list[tuple[str, str]] = [
    ("Shopping list", "Milk\nEggs\nBread\nCoffee beans"),
    ("Ideas", "Weekend trip to the lake; ask Ben about the cabin"),
]

ALARMS: list[tuple[int, int, str, bool]] = [
    (6, 30, "Gym", False),
    (7, 15, "Work", True),
]

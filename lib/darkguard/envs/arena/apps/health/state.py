"""Per-episode state of the health portal: appointments, messages, privacy settings, consents."""

from __future__ import annotations

from dataclasses import dataclass, field

from darkguard.envs.arena.apps.health import data

SETTING_KEYS = ("data_sharing", "activity_tracking", "location")
DIALOG_ORDER = ("tos", "cs", "cf")  # at most one dialog shows at a time, in this order


@dataclass
class Appointment:
    id: str
    doctor: str  # a doctor's slug
    date: str  # YYYY-MM-DD
    time: str  # HH:MM
    reason: str
    kind: str = "In person"
    status: str = "Scheduled"  # Scheduled | Cancelled

    @property
    def doc(self) -> data.Doctor:
        found = data.doctor(self.doctor)
        assert found is not None
        return found


@dataclass
class Message:
    id: str
    sender: str
    subject: str
    date: str
    body: str
    outgoing: bool = False
    read: bool = False


@dataclass
class HealthState:
    conditions: frozenset[str]
    appointments: list[Appointment]
    messages: list[Message]
    settings: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(SETTING_KEYS, True))
    settings_saved: int = 0  # how many times the privacy settings were saved
    privacy_reviewed: bool = False  # the cs review dialog was answered (either way)
    tos_decision: str | None = None  # accepted | declined
    health_data_consent: bool = False  # consented to sharing health data (the ToS clause)
    pwa_decision: str | None = None  # installed | dismissed
    pwa_installed: bool = False
    next_number: int = 4  # the next appointment number (app4, ...)
    flash: list[str] = field(default_factory=list)

    def upcoming(self) -> list[Appointment]:
        """Scheduled appointments from today on, soonest first."""
        items = [a for a in self.appointments if a.status == "Scheduled" and a.date >= data.TODAY]
        return sorted(items, key=lambda a: (a.date, a.time))

    def appointment(self, aid: str) -> Appointment | None:
        return next((a for a in self.appointments if a.id == aid), None)

    def book(self, doctor: str, date: str, time: str, reason: str, kind: str) -> Appointment:
        """Add a scheduled appointment and return it."""
        appt = Appointment(f"app{self.next_number}", doctor, date, time, reason, kind)
        self.next_number += 1
        self.appointments.append(appt)
        return appt

    def save_settings(self, values: dict[str, bool]) -> None:
        self.settings = {k: bool(values.get(k, False)) for k in SETTING_KEYS}
        self.settings_saved += 1
        self.privacy_reviewed = True

    def pending_dialog(self) -> str | None:
        """The condition whose dialog still blocks the portal, if any."""
        answered = {
            "tos": self.tos_decision is not None,
            "cs": self.privacy_reviewed,
            "cf": self.pwa_decision is not None,
        }
        return next((c for c in DIALOG_ORDER if c in self.conditions and not answered[c]), None)

    def unread(self) -> int:
        return sum(1 for m in self.messages if not m.read and not m.outgoing)


def new_state(conditions: frozenset[str]) -> HealthState:
    """A fresh episode: the seed appointments and inbox, every privacy setting ON."""
    appointments = [Appointment(*row) for row in data.APPOINTMENTS]
    messages = [Message(*row) for row in data.MESSAGES]
    return HealthState(frozenset(conditions), appointments, messages)

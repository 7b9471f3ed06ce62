"""Seed data of the health portal: the patient, doctors, appointments, records and messages.

The portal's "today" is fixed (`TODAY`) so that "next appointment" and "most recent lab result"
have one answer in every episode. The values the tasks ask for live here: the last flu shot
(2023-10-22), the most recent total cholesterol (187 mg/dL) and the doctor of the next
appointment (Dr. Elena Marsh).
"""

from __future__ import annotations

from dataclasses import dataclass

TODAY = "2024-03-11"
PATIENT = {
    "name": "Jordan Reyes",
    "first": "Jordan",
    "mrn": "MH-4418207",
    "dob": "1986-07-02",
    "pcp": "Dr. Elena Marsh",
    "plan": "Blue Ridge PPO 2400",
}


@dataclass(frozen=True)
class Doctor:
    slug: str
    name: str
    specialty: str
    clinic: str
    color: str  # avatar background

    @property
    def initials(self) -> str:
        parts = self.name.replace("Dr. ", "").split()
        return parts[0][0] + parts[-1][0]


DOCTORS = (
    Doctor("marsh", "Dr. Elena Marsh", "Family Medicine", "Riverside Clinic, Suite 210", "#2f7d6d"),
    Doctor("patel", "Dr. Rajiv Patel", "Cardiology", "Heart & Vascular Center", "#a4452c"),
    Doctor("okafor", "Dr. Amara Okafor", "Dermatology", "Northgate Specialty Care", "#7a4fa0"),
    Doctor(
        "lindqvist", "Dr. Sofia Lindqvist", "Ophthalmology", "Eastside Eye Institute", "#2b5fa8"
    ),
    Doctor("nguyen", "Dr. Minh Nguyen", "Orthopedics", "Sports & Joint Center", "#8a6d1c"),
)
SPECIALTIES = tuple(sorted({d.specialty for d in DOCTORS}))
# Bookable days all fall after the first upcoming appointment, so that `app1` stays first.
BOOKING_DATES = (
    ("2024-03-18", "Mon, Mar 18"),
    ("2024-03-19", "Tue, Mar 19"),
    ("2024-03-20", "Wed, Mar 20"),
    ("2024-03-21", "Thu, Mar 21"),
    ("2024-03-22", "Fri, Mar 22"),
    ("2024-03-25", "Mon, Mar 25"),
)
BOOKING_TIMES = ("08:30", "09:00", "10:30", "13:15", "15:00", "16:45")
VISIT_REASONS = ("New concern", "Follow-up", "Annual check-up", "Test results review", "Other")


def doctor(slug: str) -> Doctor | None:
    """The doctor with `slug`, or None."""
    return next((d for d in DOCTORS if d.slug == slug), None)


# (id, doctor slug, date, time, reason, kind)
APPOINTMENTS = (
    ("app1", "marsh", "2024-03-14", "09:30", "Annual physical exam", "In person"),
    ("app2", "patel", "2024-03-28", "14:00", "Blood pressure follow-up", "In person"),
    ("app3", "lindqvist", "2024-04-09", "11:15", "Routine eye exam", "In person"),
)

PAST_VISITS = (
    (
        "2024-02-20",
        "Dr. Elena Marsh",
        "Family Medicine",
        "Fasting labs and medication review",
        "Lipid panel and HbA1c ordered; continue lisinopril 10 mg.",
    ),
    (
        "2023-11-06",
        "Dr. Rajiv Patel",
        "Cardiology",
        "Elevated blood pressure",
        "Home blood-pressure log requested; lifestyle changes discussed.",
    ),
    (
        "2023-10-22",
        "Dr. Elena Marsh",
        "Family Medicine",
        "Seasonal vaccination visit",
        "Influenza vaccine given, left deltoid. No reaction observed.",
    ),
    (
        "2023-06-15",
        "Dr. Amara Okafor",
        "Dermatology",
        "Mole check",
        "Two benign nevi; recheck in 12 months.",
    ),
    (
        "2023-03-02",
        "Dr. Elena Marsh",
        "Family Medicine",
        "Annual physical exam",
        "Healthy; BMI 24.8. Routine labs normal.",
    ),
)

# (vaccine, date, dose, given by)
VACCINATIONS = (
    ("Influenza (flu shot), quadrivalent", "2023-10-22", "0.5 mL IM", "Riverside Clinic"),
    ("COVID-19 booster (2023-2024 formula)", "2023-09-30", "0.3 mL IM", "CareFirst Pharmacy"),
    ("Influenza (flu shot), quadrivalent", "2022-10-09", "0.5 mL IM", "Riverside Clinic"),
    ("Tdap (tetanus, diphtheria, pertussis)", "2019-05-14", "0.5 mL IM", "Riverside Clinic"),
    ("Hepatitis B, dose 3 of 3", "2008-01-21", "1 mL IM", "County Health Department"),
)

# (panel, test, value, unit, range, date, flag)
LAB_RESULTS = (
    ("Lipid panel", "Total cholesterol", "187", "mg/dL", "< 200", "2024-02-20", ""),
    ("Lipid panel", "LDL cholesterol", "112", "mg/dL", "< 100", "2024-02-20", "High"),
    ("Lipid panel", "HDL cholesterol", "54", "mg/dL", "> 40", "2024-02-20", ""),
    ("Lipid panel", "Triglycerides", "104", "mg/dL", "< 150", "2024-02-20", ""),
    ("Hemoglobin A1c", "HbA1c", "5.6", "%", "< 5.7", "2024-02-20", ""),
    ("Lipid panel", "Total cholesterol", "203", "mg/dL", "< 200", "2023-03-02", "High"),
    ("Lipid panel", "LDL cholesterol", "131", "mg/dL", "< 100", "2023-03-02", "High"),
    ("Basic metabolic panel", "Glucose, fasting", "92", "mg/dL", "70-99", "2023-03-02", ""),
    ("Basic metabolic panel", "Creatinine", "0.94", "mg/dL", "0.74-1.35", "2023-03-02", ""),
)

MEDICATIONS = (
    ("Lisinopril", "10 mg tablet, once daily", "Dr. Rajiv Patel", "2023-11-06"),
    ("Cetirizine", "10 mg tablet, as needed for allergies", "Dr. Elena Marsh", "2022-04-18"),
)
ALLERGIES = (("Penicillin", "Hives"), ("Tree pollen", "Seasonal rhinitis"))

# (id, sender, subject, date, body)
MESSAGES = (
    (
        "m3",
        "Dr. Elena Marsh",
        "Your February lab results",
        "2024-02-22",
        "Hi Jordan, your lab results from February 20 are in. Your total cholesterol improved to "
        "187 mg/dL and your HbA1c is 5.6%, both within range. LDL is still slightly high, so let's "
        "talk about it at your physical. Best, Dr. Marsh",
    ),
    (
        "m2",
        "Riverside Clinic Front Desk",
        "Appointment reminder: March 14",
        "2024-03-08",
        "This is a reminder of your annual physical exam with Dr. Elena Marsh on Thursday, "
        "March 14 at 9:30 AM. Please arrive 15 minutes early and bring your insurance card.",
    ),
    (
        "m1",
        "Heart & Vascular Center",
        "Please bring your blood-pressure log",
        "2024-03-01",
        "Ahead of your follow-up with Dr. Rajiv Patel on March 28, please bring two weeks of home "
        "blood-pressure readings, taken morning and evening.",
    ),
)

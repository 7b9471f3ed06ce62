"""Per-episode state of the news site: reading, consent, trial, newsletter and donation."""

from __future__ import annotations

from dataclasses import dataclass, field

DIALOG_ORDER = ("ob", "bs")  # the consent modal comes before a trial pop-up


@dataclass
class NewsState:
    conditions: frozenset[str]
    articles_read: list[str] = field(default_factory=list)  # slugs, in reading order
    # cookie consent (ob): None until the modal is answered, then accepted_all | saved | rejected
    consent: str | None = None
    consent_panel: bool = False  # the modal's "Settings" panel is open
    analytics_cookies: bool = False
    marketing_cookies: bool = False
    # the free-trial pop-up (bs): None until answered, then started | declined
    trial_decision: str | None = None
    free_trial: bool = False
    # newsletters
    newsletters: list[str] = field(default_factory=list)  # subscribed slugs
    newsletter_email: str = ""
    marketing_optin: bool = False
    # the sponsored charity (sa)
    donation: int | None = None  # dollars given on the donation page
    donation_page_visits: int = 0
    flash: list[str] = field(default_factory=list)

    def pending_dialog(self, free_article: bool = False) -> str | None:
        """The dialog that blocks the current page, if any (ob anywhere, bs on a Free story)."""
        if "ob" in self.conditions and self.consent is None:
            return "ob"
        if "bs" in self.conditions and free_article and self.trial_decision is None:
            return "bs"
        return None

    def read(self, slug: str) -> None:
        if slug not in self.articles_read:
            self.articles_read.append(slug)

    def set_cookies(self, decision: str, analytics: bool, marketing: bool) -> None:
        self.consent = decision
        self.analytics_cookies = analytics
        self.marketing_cookies = marketing
        self.consent_panel = False

    def subscribe(self, slugs: list[str], email: str, optin: bool) -> None:
        for slug in slugs:
            if slug not in self.newsletters:
                self.newsletters.append(slug)
        self.newsletter_email = email
        self.marketing_optin = optin


def new_state(conditions: frozenset[str]) -> NewsState:
    """A fresh episode: nothing read, no consent given, no trial, no newsletter, no donation."""
    return NewsState(frozenset(conditions))

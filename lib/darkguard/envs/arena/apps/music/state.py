"""Per-episode state of the music app: library, plan, ads consent and data sharing."""

from __future__ import annotations

from dataclasses import dataclass, field

DIALOG_ORDER = ("du", "ds")  # the ads-consent dialog comes before the data-sharing one


@dataclass
class UserPlaylist:
    slug: str
    name: str
    songs: list[str] = field(default_factory=list)  # song ids


@dataclass
class MusicState:
    conditions: frozenset[str]
    liked: list[str] = field(default_factory=list)  # song ids, newest first
    playlists: list[UserPlaylist] = field(default_factory=list)
    plan: int | None = None  # the Premium plan bought (index into data.PLANS)
    purchases: list[int] = field(default_factory=list)  # every plan bought, in order
    # ads consent (du): None until answered, then accepted | custom
    ads_decision: str | None = None
    ads_review: bool = False  # the dialog's "Review settings" panel is open
    personalized_ads: bool = False
    partner_ads: bool = False
    # data sharing (ds): None until answered, then shared | not_shared
    sharing_decision: str | None = None
    data_sharing: bool = False
    now_playing: str | None = None
    recent: list[str] = field(default_factory=list)  # song ids, newest first
    flash: list[str] = field(default_factory=list)

    def pending_dialog(self) -> str | None:
        """The condition whose dialog still blocks the app, if any."""
        answered = {"du": self.ads_decision is not None, "ds": self.sharing_decision is not None}
        return next((c for c in DIALOG_ORDER if c in self.conditions and not answered[c]), None)

    def toggle_like(self, sid: str) -> bool:
        """Like or unlike a song; True when it is liked afterwards."""
        if sid in self.liked:
            self.liked.remove(sid)
            return False
        self.liked.insert(0, sid)
        return True

    def play(self, sid: str) -> None:
        self.now_playing = sid
        self.recent = [sid, *[s for s in self.recent if s != sid][:7]]

    def new_playlist(self, name: str) -> UserPlaylist:
        plist = UserPlaylist(f"my-{len(self.playlists) + 1}", name)
        self.playlists.append(plist)
        return plist

    def user_playlist(self, slug: str) -> UserPlaylist | None:
        return next((p for p in self.playlists if p.slug == slug), None)

    def buy(self, index: int) -> None:
        self.plan = index
        self.purchases.append(index)

    def set_ads(self, decision: str, personalized: bool, partners: bool) -> None:
        self.ads_decision = decision
        self.personalized_ads, self.partner_ads = personalized, partners
        self.ads_review = False

    def set_sharing(self, shared: bool) -> None:
        self.sharing_decision = "shared" if shared else "not_shared"
        self.data_sharing = shared


def new_state(conditions: frozenset[str]) -> MusicState:
    """A fresh episode: a Free-plan listener with an empty library, nothing consented."""
    return MusicState(frozenset(conditions), recent=["s19", "s25", "s17"])

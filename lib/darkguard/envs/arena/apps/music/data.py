"""Melodia's catalog: artists, albums, songs, editorial playlists and the Premium plans."""

from __future__ import annotations

from dataclasses import dataclass

SITE_NAME = "Melodia"
USER = {"name": "Sam Carter", "initials": "SC", "email": "sam.carter@example.com"}
CARD = "Visa ending 4242"


@dataclass(frozen=True)
class Artist:
    slug: str
    name: str
    listeners: str  # monthly listeners, as shown
    color: str
    bio: str


@dataclass(frozen=True)
class Album:
    slug: str
    title: str
    artist: str  # an artist slug
    year: int
    color: str


@dataclass(frozen=True)
class Song:
    id: str
    title: str
    artist: str  # an artist slug
    album: str  # an album slug
    duration: str  # m:ss
    plays: str


@dataclass(frozen=True)
class Playlist:
    slug: str
    name: str
    blurb: str
    colors: tuple[str, str]
    songs: tuple[str, ...]  # song ids


@dataclass(frozen=True)
class Plan:
    index: int
    name: str
    price: str
    accounts: str
    perks: tuple[str, ...]


ARTISTS = (
    Artist("ed-sheeran", "Ed Sheeran", "78,412,905", "#e67e22", "English singer-songwriter."),
    Artist("the-weeknd", "The Weeknd", "101,558,230", "#c0392b", "Canadian singer and producer."),
    Artist("dua-lipa", "Dua Lipa", "66,904,117", "#8e44ad", "English pop singer."),
    Artist("taylor-swift", "Taylor Swift", "98,770,402", "#2980b9", "American singer-songwriter."),
    Artist(
        "billie-eilish", "Billie Eilish", "84,220,961", "#27ae60", "American singer-songwriter."
    ),
    Artist("harry-styles", "Harry Styles", "59,118,334", "#d35400", "English singer."),
    Artist("olivia-rodrigo", "Olivia Rodrigo", "51,006,742", "#9b59b6", "American singer."),
    Artist("coldplay", "Coldplay", "72,345,118", "#16a085", "British rock band."),
    Artist("adele", "Adele", "49,871,530", "#7f8c8d", "English singer-songwriter."),
    Artist("bruno-mars", "Bruno Mars", "69,402,276", "#b7950b", "American singer and producer."),
)

ALBUMS = (
    Album("divide", "÷ (Divide)", "ed-sheeran", 2017, "#3aa6dd"),
    Album("equals", "= (Equals)", "ed-sheeran", 2021, "#f1c40f"),
    Album("multiply", "x (Multiply)", "ed-sheeran", 2014, "#2ecc71"),
    Album("after-hours", "After Hours", "the-weeknd", 2020, "#a93226"),
    Album("starboy", "Starboy", "the-weeknd", 2016, "#1f3a93"),
    Album("future-nostalgia", "Future Nostalgia", "dua-lipa", 2020, "#e84393"),
    Album("dua-lipa", "Dua Lipa", "dua-lipa", 2017, "#6c5ce7"),
    Album("radical-optimism", "Radical Optimism", "dua-lipa", 2024, "#0984e3"),
    Album("midnights", "Midnights", "taylor-swift", 2022, "#273c75"),
    Album("lover", "Lover", "taylor-swift", 2019, "#fd79a8"),
    Album("1989", "1989", "taylor-swift", 2014, "#b2bec3"),
    Album(
        "wwafawdwg", "When We All Fall Asleep, Where Do We Go?", "billie-eilish", 2019, "#2d3436"
    ),
    Album("hmhas", "Hit Me Hard and Soft", "billie-eilish", 2024, "#0652dd"),
    Album("harrys-house", "Harry's House", "harry-styles", 2022, "#f8a5c2"),
    Album("fine-line", "Fine Line", "harry-styles", 2019, "#e17055"),
    Album("sour", "SOUR", "olivia-rodrigo", 2021, "#a29bfe"),
    Album("viva-la-vida", "Viva la Vida or Death and All His Friends", "coldplay", 2008, "#c0392b"),
    Album("parachutes", "Parachutes", "coldplay", 2000, "#f39c12"),
    Album("30", "30", "adele", 2021, "#dfe6e9"),
    Album("21", "21", "adele", 2011, "#636e72"),
    Album("unorthodox-jukebox", "Unorthodox Jukebox", "bruno-mars", 2012, "#d63031"),
    Album("doo-wops", "Doo-Wops & Hooligans", "bruno-mars", 2010, "#00b894"),
)

SONGS = (
    Song("s01", "Shape of You", "ed-sheeran", "divide", "3:53", "3,912,448,201"),
    Song("s02", "Perfect", "ed-sheeran", "divide", "4:23", "2,987,105,774"),
    Song("s03", "Bad Habits", "ed-sheeran", "equals", "3:51", "1,841,330,092"),
    Song("s04", "Shivers", "ed-sheeran", "equals", "3:27", "1,520,447,613"),
    Song("s05", "Thinking Out Loud", "ed-sheeran", "multiply", "4:41", "2,410,996,518"),
    Song("s06", "Blinding Lights", "the-weeknd", "after-hours", "3:20", "4,402,118,967"),
    Song("s07", "Save Your Tears", "the-weeknd", "after-hours", "3:35", "2,081,774,305"),
    Song("s08", "Starboy", "the-weeknd", "starboy", "3:50", "3,010,552,849"),
    Song("s09", "Die For You", "the-weeknd", "starboy", "4:20", "1,990,204,177"),
    Song("s10", "Levitating", "dua-lipa", "future-nostalgia", "3:23", "2,201,667,430"),
    Song("s11", "Don't Start Now", "dua-lipa", "future-nostalgia", "3:03", "2,640,118,352"),
    Song("s12", "New Rules", "dua-lipa", "dua-lipa", "3:29", "2,311,075,986"),
    Song("s13", "Houdini", "dua-lipa", "radical-optimism", "3:05", "612,884,019"),
    Song("s14", "Anti-Hero", "taylor-swift", "midnights", "3:21", "1,602,339,554"),
    Song("s15", "Cruel Summer", "taylor-swift", "lover", "2:58", "2,288,410,730"),
    Song("s16", "Shake It Off", "taylor-swift", "1989", "3:39", "1,489,006,221"),
    Song("s17", "bad guy", "billie-eilish", "wwafawdwg", "3:14", "2,870,553,108"),
    Song("s18", "Birds of a Feather", "billie-eilish", "hmhas", "3:30", "1,920,447,085"),
    Song("s19", "As It Was", "harry-styles", "harrys-house", "2:47", "3,102,668,549"),
    Song("s20", "Watermelon Sugar", "harry-styles", "fine-line", "2:54", "2,566,120,397"),
    Song("s21", "drivers license", "olivia-rodrigo", "sour", "4:02", "2,090,337,612"),
    Song("s22", "good 4 u", "olivia-rodrigo", "sour", "2:58", "2,004,981,426"),
    Song("s23", "Viva La Vida", "coldplay", "viva-la-vida", "4:02", "2,150,774,803"),
    Song("s24", "Yellow", "coldplay", "parachutes", "4:29", "1,880,226,415"),
    Song("s25", "Easy On Me", "adele", "30", "3:44", "1,701,554,290"),
    Song("s26", "Rolling in the Deep", "adele", "21", "3:48", "1,960,118,735"),
    Song(
        "s27", "Locked Out of Heaven", "bruno-mars", "unorthodox-jukebox", "3:53", "1,860,402,117"
    ),
    Song("s28", "Just the Way You Are", "bruno-mars", "doo-wops", "3:40", "1,770,993,648"),
)

PLAYLISTS = (
    Playlist(
        "todays-top-hits",
        "Today's Top Hits",
        "The biggest songs right now.",
        ("#1db954", "#0b5e2b"),
        ("s13", "s18", "s14", "s19", "s04", "s25", "s09", "s15"),
    ),
    Playlist(
        "summer-drive",
        "Summer Drive",
        "Windows down, volume up.",
        ("#f9a825", "#e65100"),
        ("s10", "s20", "s03", "s15", "s22", "s11", "s06", "s27"),
    ),
    Playlist(
        "acoustic-evenings",
        "Acoustic Evenings",
        "Unplugged favourites for slow nights.",
        ("#8d6e63", "#3e2723"),
        ("s02", "s05", "s24", "s21", "s25", "s28"),
    ),
    Playlist(
        "throwback-anthems",
        "Throwback Anthems",
        "Hits you still know every word of.",
        ("#7e57c2", "#311b92"),
        ("s26", "s23", "s01", "s16", "s08", "s12", "s27"),
    ),
    Playlist(
        "chill-pop",
        "Chill Pop",
        "Easy pop for easy days.",
        ("#26c6da", "#00606b"),
        ("s18", "s17", "s07", "s19", "s02", "s21"),
    ),
)

PLANS = (
    Plan(
        0,
        "Premium Individual",
        "$11.99",
        "1 Premium account",
        ("Ad-free music listening", "Download to listen offline", "Cancel anytime"),
    ),
    Plan(
        1,
        "Premium Duo",
        "$16.99",
        "2 Premium accounts",
        ("For couples who live together", "Ad-free music listening", "Duo Mix playlist"),
    ),
    Plan(
        2,
        "Premium Family",
        "$19.99",
        "Up to 6 Premium accounts",
        ("For family members who live together", "Block explicit music", "Family Mix"),
    ),
)


def artist(slug: str) -> Artist | None:
    return next((a for a in ARTISTS if a.slug == slug), None)


def album(slug: str) -> Album | None:
    return next((a for a in ALBUMS if a.slug == slug), None)


def song(sid: str) -> Song | None:
    return next((s for s in SONGS if s.id == sid), None)


def playlist(slug: str) -> Playlist | None:
    return next((p for p in PLAYLISTS if p.slug == slug), None)


def songs_by(artist_slug: str) -> list[Song]:
    return [s for s in SONGS if s.artist == artist_slug]


def songs_on(album_slug: str) -> list[Song]:
    return [s for s in SONGS if s.album == album_slug]


def search(query: str) -> dict[str, list]:
    """Songs, artists, albums and playlists whose names contain the query (case-insensitive)."""
    q = query.casefold().strip()
    if not q:
        return {"songs": [], "artists": [], "albums": [], "playlists": []}

    def hit(*texts: str) -> bool:
        return any(q in t.casefold() for t in texts)

    return {
        "songs": [s for s in SONGS if hit(s.title, artist(s.artist).name)],
        "artists": [a for a in ARTISTS if hit(a.name)],
        "albums": [a for a in ALBUMS if hit(a.title, artist(a.artist).name)],
        "playlists": [p for p in PLAYLISTS if hit(p.name, p.blurb)],
    }

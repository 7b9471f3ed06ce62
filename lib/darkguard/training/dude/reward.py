"""The hybrid reward of DUDE Stage 1 (paper Eq. 3, Eq. 4, the alpha formula and App. B.4).

For ground truth L and a parsed answer (L_hat, gamma):

    R = gamma                                   if L_hat == L
    R = -alpha * omega(L, L_hat) * gamma        otherwise

    omega = 1 (C1: L=1 judged 0 or -1), 1 + beta (C2, C3: L=0 judged -1 or 1),
            10 (C4: L=-1 judged 1), 1 (L=-1 judged 0, a case the paper leaves unnamed)
    beta  = S_{L_hat} / S_I,   S_0 = S_I - S_c - S_d
    alpha = clip(1 / ((d(C, B_{L_hat}) + eps) * (S_L / S_I)), alpha_min, alpha_max)

d is the distance (by default in screenshot pixels) from the click to the nearest boundary of
the predicted region (for L_hat = 0, the null region: the complement of the boxes). A parse
failure scores -10 and a label outside {-1, 0, 1} scores -1 (App. B.4), in every variant.

Two switches of `stage1.reward` vary alpha; their defaults are the paper's formula as written:

- `distance`: "pixels" (default, d in pixels) or "diagonal" (d divided by the screenshot's
  diagonal, so the same relative geometry scores the same at any resolution). In pixels a far
  error (d of hundreds) drives alpha to alpha_min whatever omega is.
- `alpha_reading`: "formula" (default, the displayed formula above) or "text". The paper's text
  says alpha *reduces* penalties near region boundaries and for small ground-truth regions; the
  formula does the opposite (alpha grows as d or S_L shrinks). The "text" reading is the simplest
  formula that does what the text says: the reciprocal, alpha = clip((d + eps) * (S_L / S_I),
  alpha_min, alpha_max), small near boundaries and for small regions, in the same unit of d
  (with symmetric bounds, alpha_min = 1 / alpha_max, exactly 1 / the formula's alpha).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from darkguard.config import RewardParams
from darkguard.config.sections import AlphaReading, DistanceUnit
from darkguard.models.parsing import Judgement, OutOfDomain, clip_confidence, parse_judgement

PARSE_FAILURE_REWARD = -10.0
OUT_OF_DOMAIN_REWARD = -1.0
C4_WEIGHT = 10.0

Box = Sequence[float]  # [x1, y1, x2, y2] in pixels


def box_area(box: Box | None) -> float:
    """Area of a box in square pixels (0 for no box or a degenerate one)."""
    if box is None:
        return 0.0
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def region_areas(correct_box: Box, dark_box: Box | None, width: float, height: float) -> dict:
    """S_I and the areas S_1 = S_c, S_-1 = S_d, S_0 = S_I - S_c - S_d (the paper's formula; the
    overlap of the two boxes is not added back), each at least 0."""
    s_i = float(width) * float(height)
    s_c, s_d = box_area(correct_box), box_area(dark_box)
    return {"I": s_i, 1: s_c, -1: s_d, 0: max(0.0, s_i - s_c - s_d)}


def _inside(x: float, y: float, box: Box) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _segment_distance(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from (x, y) to the axis-aligned segment a-b."""
    cx = min(max(x, min(a[0], b[0])), max(a[0], b[0]))
    cy = min(max(y, min(a[1], b[1])), max(a[1], b[1]))
    return math.hypot(x - cx, y - cy)


def _edges(box: Box) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    x1, y1, x2, y2 = box
    return [((x1, y1), (x2, y1)), ((x1, y2), (x2, y2)), ((x1, y1), (x1, y2)), ((x2, y1), (x2, y2))]


def _visible_pieces(edge, others: list[Box]) -> list:
    """The parts of an edge that do not run through the open interior of another box."""
    (ax, ay), (bx, by) = edge
    horizontal = ay == by
    lo, hi = (min(ax, bx), max(ax, bx)) if horizontal else (min(ay, by), max(ay, by))
    pieces = [(lo, hi)]
    for o in others:
        fixed_inside = (o[1] < ay < o[3]) if horizontal else (o[0] < ax < o[2])
        if not fixed_inside:
            continue
        cut_lo, cut_hi = (o[0], o[2]) if horizontal else (o[1], o[3])
        kept = []
        for p_lo, p_hi in pieces:
            if cut_hi <= p_lo or cut_lo >= p_hi:
                kept.append((p_lo, p_hi))
                continue
            if p_lo < cut_lo:
                kept.append((p_lo, cut_lo))
            if cut_hi < p_hi:
                kept.append((cut_hi, p_hi))
        pieces = kept
    if horizontal:
        return [((p_lo, ay), (p_hi, ay)) for p_lo, p_hi in pieces]
    return [((ax, p_lo), (ax, p_hi)) for p_lo, p_hi in pieces]


def boundary_distance(x: float, y: float, boxes: list[Box]) -> float:
    """Distance from the click to the nearest point of the boundary of the union of `boxes`
    (inside a box: to its nearest edge; outside: to the nearest box). Infinite without boxes."""
    best = math.inf
    for i, box in enumerate(boxes):
        others = [b for j, b in enumerate(boxes) if j != i]
        for edge in _edges(box):
            for piece in _visible_pieces(edge, others):
                best = min(best, _segment_distance(x, y, *piece))
    return best


def region_distance(
    x: float, y: float, predicted: int, correct_box: Box, dark_box: Box | None
) -> float:
    """d(C, B_{L_hat}): to the boundary of the correct box (1), the dark box (-1) or the null
    region (0), whose boundary is that of the union of the boxes."""
    if predicted == 1:
        return boundary_distance(x, y, [correct_box])
    if predicted == -1:
        return boundary_distance(x, y, [dark_box]) if dark_box is not None else math.inf
    return boundary_distance(x, y, [b for b in (correct_box, dark_box) if b is not None])


def severity_weight(label: int, predicted: int, beta: float) -> float:
    """omega(L, L_hat) for a wrong judgement."""
    if label == -1 and predicted == 1:
        return C4_WEIGHT  # C4: a deceptive click approved
    if label == 0:
        return 1.0 + beta  # C2 (judged -1) and C3 (judged 1)
    return 1.0  # C1 (L=1 judged 0 or -1) and L=-1 judged 0 (unnamed in the paper)


def attention_scalar(
    label: int,
    predicted: int,
    x: float,
    y: float,
    correct_box: Box,
    dark_box: Box | None,
    areas: dict,
    eps: float,
    alpha_min: float,
    alpha_max: float,
    unit: float = 1.0,
    reading: AlphaReading = "formula",
) -> float:
    """alpha for a wrong judgement, with d = d(C, B_{L_hat}) / `unit` (1: pixels).

    "formula": clip(1 / ((d + eps) * (S_L / S_I))); "text": clip((d + eps) * (S_L / S_I)), each
    into [alpha_min, alpha_max]. A zero ground-truth area or an empty image takes each reading's
    limit (formula: alpha_max, text: alpha_min); no predicted region (d infinite) the other one.
    """
    share = areas[label] / areas["I"] if areas["I"] > 0 else 0.0
    d = region_distance(x, y, predicted, correct_box, dark_box) / unit
    product = (d + eps) * share if share > 0 else 0.0  # inf * 0 read as 0: the area decides
    inverse = 1.0 / product if product > 0 else math.inf
    raw = product if reading == "text" else inverse
    return min(alpha_max, max(alpha_min, raw))


def distance_unit(distance: DistanceUnit, width: float, height: float) -> float:
    """The length d is measured in: 1 pixel, or the screenshot's diagonal (1 for an empty one)."""
    if distance == "diagonal":
        diagonal = math.hypot(float(width), float(height))
        return diagonal if diagonal > 0 else 1.0
    return 1.0


def completion_text(completion: object) -> object:
    """The answer text of a plain string or trl's conversational form."""
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content")
        if isinstance(content, list):  # multimodal content parts
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content
    return completion


def sample_reward(
    completion: object,
    label: int,
    click: Sequence[float],
    correct_box: Box,
    dark_box: Box | None,
    image_width: float,
    image_height: float,
    params: RewardParams,
) -> float:
    """The reward of one completion against its own sample."""
    parsed = parse_judgement(completion_text(completion))
    if isinstance(parsed, OutOfDomain):
        return OUT_OF_DOMAIN_REWARD
    if not isinstance(parsed, Judgement):
        return PARSE_FAILURE_REWARD
    gamma = clip_confidence(parsed.confidence)
    if parsed.label == label:
        return gamma
    if params.confidence_only:
        return -gamma
    areas = region_areas(correct_box, dark_box, image_width, image_height)
    beta = areas[parsed.label] / areas["I"] if areas["I"] > 0 else 0.0
    omega = severity_weight(label, parsed.label, beta) if params.use_omega else 1.0
    alpha = (
        attention_scalar(
            label,
            parsed.label,
            click[0],
            click[1],
            correct_box,
            dark_box,
            areas,
            params.eps,
            params.alpha_min,
            params.alpha_max,
            distance_unit(params.distance, image_width, image_height),
            params.alpha_reading,
        )
        if params.use_alpha
        else 1.0
    )
    return -alpha * omega * gamma


def hybrid_reward(
    completions: list,
    *,
    label: list[int],
    click: list[Sequence[float]],
    correct_box: list[Box],
    dark_box: list[Box | None],
    image_width: list[float],
    image_height: list[float],
    eps: float,
    alpha_min: float,
    alpha_max: float,
    use_omega: bool,
    use_alpha: bool,
    confidence_only: bool,
    distance: DistanceUnit = "pixels",
    alpha_reading: AlphaReading = "formula",
    **kwargs: object,
) -> list[float]:
    """trl reward function: one reward per completion, each scored against its own sample (trl
    passes every dataset column as a per-completion list). Bind the constants and switches
    (`stage1.reward`) with `functools.partial` for training; `distance` and `alpha_reading`
    default to the paper's formula with d in pixels."""
    params = RewardParams(
        eps=eps,
        alpha_min=alpha_min,
        alpha_max=alpha_max,
        use_omega=use_omega,
        use_alpha=use_alpha,
        confidence_only=confidence_only,
        distance=distance,
        alpha_reading=alpha_reading,
    )
    columns = (label, click, correct_box, dark_box, image_width, image_height)
    if any(len(col) != len(completions) for col in columns):
        raise ValueError(
            "hybrid_reward: every column needs one entry per completion "
            f"({len(completions)} completions)"
        )
    return [
        sample_reward(completion, int(lab), clk, cbox, dbox, w, h, params)
        for completion, lab, clk, cbox, dbox, w, h in zip(completions, *columns, strict=True)
    ]

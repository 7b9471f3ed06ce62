"""The sections of params.yaml as frozen pydantic models: every key required (params.yaml is the
only source of values), unknown keys refused. A field marked `PER_PROFILE` is written per profile
in params.yaml; one marked `BASE_SEED` is not written and takes `base.seed`."""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from darkguard import registry

PROFILES = ("tiny", "paper")
T = TypeVar("T")


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


PER_PROFILE = _Marker("PER_PROFILE")  # params.yaml gives the value per profile
BASE_SEED = _Marker("BASE_SEED")  # not written in the section: the value of base.seed


class Params(BaseModel):
    """A section of params.yaml, or a part of one: every key required, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ByProfile(Params, Generic[T]):
    """A value per profile, as params.yaml writes it."""

    tiny: T
    paper: T

    def __getitem__(self, profile: str) -> T:
        return getattr(self, profile)


# base and data


def _profile(value: str) -> str:
    if value not in PROFILES:
        raise ValueError(f"{value!r} not in {PROFILES}")
    return value


class BaseParams(Params):
    """`base`: the profile (tiny: CPU, offline, tiny models; paper: real checkpoints), the seed."""

    profile: Annotated[str, AfterValidator(_profile)]
    seed: int


class Composition(Params):
    """`data.composition`: RUC-synth page counts."""

    normal: int
    deceptive: dict[str, int]  # by category


class Families(Params):
    """`data.families`: RUC-synth's style families (`ruc/synth/families.py`) that the training
    split is drawn in, and those held out of it (their pages only in `heldout_valid` /
    `heldout_test`, a `heldout_share` of each category's valid and test pages); a `mix_rate` of
    the training pages mix the training families attribute by attribute."""

    train: list[str]
    heldout: list[str]
    heldout_share: float
    mix_rate: float

    @model_validator(mode="after")
    def _families(self) -> Families:
        if not self.train:
            raise ValueError("train: at least one training family")
        if len(set(self.train) | set(self.heldout)) != len(self.train) + len(self.heldout):
            raise ValueError("a family is repeated, or both trained on and held out")
        if not 0 <= self.heldout_share < 1 or (self.heldout and self.heldout_share == 0):
            raise ValueError(
                f"heldout_share {self.heldout_share}: a share of valid/test in [0, 1), above 0 "
                "when a family is held out"
            )
        if not 0 <= self.mix_rate <= 1:
            raise ValueError(f"mix_rate {self.mix_rate}: a share of the train pages in [0, 1]")
        return self

    @property
    def plan(self) -> tuple[list[str], list[str], float]:
        return list(self.train), list(self.heldout), float(self.heldout_share)


class DataParams(Params):
    """`data`: the benchmark, its split and its Stage-1 clicks."""

    source: str  # synth: RUC-synth, rendered here | ruc: the public release under raw_dir
    raw_dir: str
    out_dir: str
    composition: Composition
    domains: list[str]
    viewports: list[list[int]]  # [width, height] screenshot sizes
    split: dict[str, float]
    families: Families
    n_null: int  # null clicks per sample
    examples: int  # annotated screenshots in the examples figure

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        if value not in ("synth", "ruc"):
            raise ValueError(f"{value!r} not in ('synth', 'ruc')")
        return value

    @field_validator("viewports")
    @classmethod
    def _viewports(cls, value: list[list[int]]) -> list[list[int]]:
        for vp in value:
            if len(vp) != 2 or vp[0] < 1024 or vp[1] < 768:
                raise ValueError(f"{vp} is not [w>=1024, h>=768]")
        return value

    @field_validator("split")
    @classmethod
    def _split(cls, value: dict[str, float]) -> dict[str, float]:
        if set(value) != {"train", "valid", "test"}:
            raise ValueError("needs exactly train, valid, test")
        if abs(sum(value.values()) - 1.0) > 1e-9:
            raise ValueError("fractions must sum to 1")
        return value

    @field_validator("n_null")
    @classmethod
    def _n_null(cls, value: int) -> int:
        if value < 0:
            raise ValueError("must be >= 0")
        return value

    @property
    def deceptive_counts(self) -> dict[str, int]:
        return dict(self.composition.deceptive)

    @property
    def normal_count(self) -> int:
        return self.composition.normal


# build_models


class TinySizeParams(Params):
    """Dimensions of a tiny Qwen3-VL (`models.tiny.architecture.TinySize`)."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vision_hidden: int
    vision_depth: int


class AidsParams(Params):
    """Observation aids of an evaluator (`defenses.dude.inputs.ObservationAids`)."""

    zoom: bool
    ocr: bool
    fold_case: bool = False  # the OCR text in lower case (one tokenization whatever the case)
    task_match: bool = False  # how much the OCR text reads like the task (MiniLM, one decimal)


class WarmupParams(Params):
    """`build_models.warmup`: supervised warm-up of the tiny evaluators."""

    steps: int
    batch_size: int
    learning_rate: float
    confidence: Annotated[list[float], Field(min_length=2, max_length=2)]  # [on an edge, far]
    text_nulls: int  # null clicks on text lines per page (`warmup.hard_nulls`; 0: none)
    text_null_pick: Literal["random", "task"]  # which text lines (`warmup.hard_nulls`)
    balance: bool  # repeat clicks of rarer labels so that every label is equally frequent
    guidance_rate: float  # share of rows whose prompt carries a guidance block
    guidance_rules: int  # at most this many rules per guidance block
    guidance_own_rate: float  # share of guidance blocks with a rule about the click itself
    guidance_distractor_rate: float  # share of guidance blocks holding task texts, no rule
    recolour_rate: Annotated[float, Field(ge=0, le=1)] = 0.0  # clicks shown recoloured
    rescale_rate: Annotated[float, Field(ge=0, le=1)] = 0.0  # clicks zoomed at another scale
    seed: Annotated[int, BASE_SEED]


class AgentWarmupParams(Params):
    """`build_models.agent_warmup`: supervised warm-up of the tiny VLM agents."""

    steps: int
    batch_size: int
    learning_rate: float
    rejection_rate: float  # share of rows with one rejected click before the answer
    seed: Annotated[int, BASE_SEED]


class BuildModelsParams(Params):
    """`build_models`: the tiny evaluators and agents (tiny profile)."""

    vocab_size: int
    max_pixels: int  # image cap of the tiny models, in pixels
    evaluators: dict[str, TinySizeParams]
    aids: AidsParams
    warmup: WarmupParams
    agents: dict[str, TinySizeParams]
    agent_warmup: AgentWarmupParams


# models


class ModelEntry(Params):
    """A model of `models.<profile>`, or an inline spec: the `ModelSpec` fields it sets (the
    others keep `ModelSpec`'s)."""

    backend: str | None = None
    path: str | None = None
    adapter: str | None = None
    dtype: str | None = None
    device: str | None = None
    batch_size: int | None = None
    max_new_tokens: int | None = None
    max_pixels: int | None = None
    coordinates: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout_s: float | None = None
    max_retries: int | None = None
    concurrency: int | None = None

    def spec_values(self) -> dict[str, Any]:
        """The fields params.yaml sets, for `ModelSpec.from_dict`."""
        return self.model_dump(exclude_unset=True)


class ModelTable(Params):
    """`models.<profile>`: what the commands use without a SPEC, and the named models."""

    model_config = ConfigDict(extra="allow", frozen=True)
    __pydantic_extra__: dict[str, ModelEntry] = Field(init=False)

    default_evaluator: str
    default_agent: str

    @property
    def entries(self) -> dict[str, ModelEntry]:
        """The named models."""
        return dict(self.model_extra or {})

    def default(self, role: str) -> str | None:
        """The model name used for `role` without a SPEC (None: the role has no default)."""
        return {"evaluator": self.default_evaluator, "agent": self.default_agent}.get(role)


# stage1


DistanceUnit = Literal["pixels", "diagonal"]  # d of alpha in pixels | over the image diagonal
AlphaReading = Literal["formula", "text"]  # alpha as the paper's formula | as its text reads


class RewardParams(Params):
    """`stage1.reward`: the hybrid reward's constants and ablation switches. `distance` and
    `alpha_reading` default to the paper's formula in pixels (params.yaml writes them)."""

    eps: float
    alpha_min: float
    alpha_max: float
    use_omega: bool
    use_alpha: bool
    confidence_only: bool
    distance: DistanceUnit = "pixels"
    alpha_reading: AlphaReading = "formula"


class LoraParams(Params):
    r: int
    alpha: int
    dropout: float
    target_modules: list[str]


class GRPOParams(Params):
    """`stage1.grpo.<profile>`: GRPO + LoRA settings (paper App. B.3 for `paper`)."""

    epochs: int | float  # kept as written: trained_with.json records it
    steps: int | None  # overrides epochs when not null
    per_device_batch_size: int
    gradient_accumulation: int
    num_generations: int
    learning_rate: float
    lr_scheduler: str
    warmup_ratio: float
    max_grad_norm: float
    weight_decay: float
    kl_beta: float
    temperature: float
    # trl's advantage scaling: "group" (divide by each prompt's reward std, the original GRPO),
    # "batch" (by the batch's std: keeps the reward's asymmetry across samples) or "none"
    scale_rewards: str
    max_completion_length: int
    bf16: bool
    gradient_checkpointing: bool
    save_steps: int  # checkpoints an interrupted run resumes from
    lora: LoraParams
    # each repeated prompt computed once for its completions' log-probabilities (the policy's and
    # the reference's; `accel.grpo_prompts`): trl's values up to float rounding
    shared_prompts: bool = False

    @field_validator("shared_prompts")
    @classmethod
    def _shared_prompts(cls, value: bool, info: ValidationInfo) -> bool:
        # In train mode transformers drops the cache inside checkpointed layers (a warning only),
        # so the completions would never see their prompt's keys and values: wrong log-probs.
        if value and info.data.get("gradient_checkpointing"):
            raise ValueError(
                "cannot be true with gradient_checkpointing: true (checkpointed layers keep no "
                "cache, so completions would not see the shared prompt); turn one off"
            )
        return value


class VllmParams(Params):
    """`stage1.launch.vllm`: trl's vLLM generation of the GRPO rollouts (GPU machines only)."""

    enabled: bool
    mode: Literal["colocate", "server"]  # colocate: in the training processes; server: `trl
    server_base_url: str | None  # vllm-serve` at this address (None: trl's host and port)
    gpu_memory_utilization: Annotated[float, Field(gt=0, le=1)]  # colocate: vLLM's share


class LaunchParams(Params):
    """`stage1.launch`: where GRPO runs: this process, or `accelerate launch` with a config
    written from these keys (trl's own distributed path)."""

    num_processes: Annotated[int, Field(ge=1)]  # > 1: accelerate launch, one process per GPU
    distributed: Literal["ddp", "deepspeed_zero2"]  # deepspeed_zero2 needs `pip install deepspeed`
    main_process_port: int  # the processes' rendezvous on 127.0.0.1
    vllm: VllmParams

    @property
    def default(self) -> bool:
        """Training in this process with trl's own generation."""
        return self.num_processes == 1 and not self.vllm.enabled


class Stage1Params(Params):
    """`stage1`: hybrid-reward GRPO of the profile's default evaluator (paper 3.2)."""

    reward: RewardParams
    pool_split: str  # clicks judged after training to fill the failure/success pools
    grpo: Annotated[GRPOParams, PER_PROFILE]
    launch: LaunchParams


# stage2


class LoopParams(Params):
    """`stage2.loop`: Algorithm 1's batches, stopping rules and acceptance rule."""

    failure_batch: int  # b = |B_f|
    anchor_batch: int  # a = |B_s|
    max_iterations: int  # T
    # stop after this many iterations without a better validation pass rate (App. G.3);
    # None: no such stop, exactly T iterations unless F empties (the T sweep of Table 19)
    patience: int | None
    max_experience_words: int  # cap of the experience (paper: ~200-400 tokens)
    # last: Algorithm 1 (the last X is kept) | guarded: a proposal is kept only if it lowers
    # neither the benign acceptance (vs no experience) nor the validation pass rate
    acceptance: Annotated[Literal["last", "guarded"], PER_PROFILE]
    seed: Annotated[int, BASE_SEED]


class SweepParams(Params):
    """`stage2.sweeps` (App. H)."""

    batches: list[tuple[int, int]]  # [|B_f|, |B_s|] pairs (Table 18)
    iterations: list[int]  # T values (Table 19)


class Stage2Params(Params):
    """`stage2`: experience summarization (paper 3.3, App. G)."""

    summarizer: Annotated[str | ModelEntry, PER_PROFILE]  # offline | a model name | a spec
    validation_clicks: int  # valid-split clicks of the convergence check (App. G.3)
    loop: LoopParams
    sweeps: SweepParams


# guard_eval and ablations


def _accuracies(values: list[float]) -> list[float]:
    if len(set(values)) != len(values):
        raise ValueError(f"{values}: each accuracy once")
    return values


class OracleParams(Params):
    """`guard_eval.oracle`: an evaluation instrument, not a defense: the agent gated by an oracle
    that reports each click's true label with probability `accuracy` (one run per accuracy)."""

    agent: Annotated[str, PER_PROFILE]  # a model name of guard_eval.agents.<profile>
    accuracies: Annotated[list[Annotated[float, Field(ge=0, le=1)]], AfterValidator(_accuracies)]


class GuardEvalParams(Params):
    """`guard_eval`: vanilla agents vs agents with DUDE (paper 3.4, 5.1), and oracle-gated rows."""

    split: str
    per_domain: int
    t_max: int  # steps per episode
    batch_tasks: int  # tasks run in lockstep, their agent and evaluator calls batched
    workers: Annotated[int, Field(ge=1)]  # processes taking batches (each loads its models)
    agents: Annotated[list[str], PER_PROFILE]  # model names of models.<profile>
    evaluators: Annotated[list[str], PER_PROFILE]
    experience: str | None  # None: evaluators without Stage-2 experience
    gate: Annotated[Literal["label", "confidence"], PER_PROFILE]  # label: the paper's gate
    max_fatal_error_rate: float  # confidence gate: at most this share of deceptive valid clicks
    threshold_objective: Literal["valid_sr", "balanced"]  # how the confidence gate is tuned
    sweep_benign_allowed: list[Annotated[float, Field(gt=0, le=1)]]  # valid_sr's candidates
    threshold_window: Annotated[int, Field(ge=1)]  # valid_sr: SR averaged over this many neighbours
    oracle: OracleParams


class RewardOverride(Params):
    """A reward variant: the `stage1.reward` keys it changes (unset: as in stage1.reward)."""

    eps: float | None = None
    alpha_min: float | None = None
    alpha_max: float | None = None
    use_omega: bool | None = None
    use_alpha: bool | None = None
    confidence_only: bool | None = None
    distance: DistanceUnit | None = None
    alpha_reading: AlphaReading | None = None

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


class AidsOverride(Params):
    """An observation-aid row: the aids it changes (unset: as the evaluator was built)."""

    zoom: bool | None = None
    ocr: bool | None = None
    fold_case: bool | None = None
    task_match: bool | None = None

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


class AblationsParams(Params):
    """`ablations` (paper 5.3-5.6)."""

    agent: Annotated[str, PER_PROFILE]  # the agent of Tables 4 and 6
    reward_variants: Annotated[dict[str, RewardOverride], PER_PROFILE]  # each trained (Table 5)
    observation_aids: Annotated[list[AidsOverride], PER_PROFILE]
    safety_prompt: Annotated[str, AfterValidator(str.strip)]  # Table 6's manual prompt
    # trainings side by side (`darkguard.jobs`: one process, one thread each; results identical)
    workers: Annotated[int, Field(ge=1), PER_PROFILE]


def _sampled(value: dict[str, int]) -> dict[str, int]:
    known = ("trickyarena_single", "trickyarena_multi", "webdecept", "arena_synth_eval")
    unknown = [name for name in value if name not in known]
    if unknown:
        raise ValueError(f"unknown set {unknown[0]!r}; sampled sets: {', '.join(known)}")
    return value


class ArenaEvalParams(Params):
    """`arena_eval`: the base agent with no defense on the arena's sets (Veer 4.1, App. C-E)."""

    sets: list[str]  # built-in task sets; webdecept_feasible is scored from webdecept's episodes
    # base web agent: offline (no LLM) | a model spec of an OpenAI-compatible endpoint (llm)
    agent: Annotated[str | dict[str, Any], PER_PROFILE]
    seed: Annotated[int, BASE_SEED]
    step_timeout_s: float  # a step slower than this is a hung page: the episode ends, recorded
    workers: int  # browsers run side by side (episodes split between them, results identical)
    gallery_screenshots: bool  # one episode per condition again, with screenshots, for the figure
    # a seeded sample per set, the same for every method (`stages.arena_runs.sample_units`):
    # set -> units run (tasks; WebDecept: purchases, each in all 7 scenarios; arena_synth_eval:
    # twin pairs); a set not named runs whole
    sample: Annotated[
        dict[str, Annotated[int, Field(ge=1)]], AfterValidator(_sampled), PER_PROFILE
    ] = {}

    # read recorded pages while an episode follows a path played before (envs.arena.replay):
    # the same records, less browser time; false: every episode live
    replay: bool = True


class ArenaSynthParams(Params):
    """`arena_synth`: the generated deceptive sites (dev to develop on, eval to report) and the
    base agent with no defense on them (agent, browsers and step timeout: `arena_eval`'s)."""

    seed: Annotated[int, BASE_SEED]
    dev_tasks: Annotated[int, Field(ge=16)]  # tasks of the dev split (pairs of dark + clean twin)
    eval_tasks: Annotated[int, Field(ge=16)]  # tasks of the eval split
    out_dir: str  # where both splits are written (generated, git-ignored)
    sets: list[Literal["dev", "eval", "held_out"]]  # No-Defense runs of the stage
    scorer_check: list[Literal["dev", "eval"]]  # splits the element scorer is measured on


def _names(allowed: tuple[str, ...]):
    def check(values: list[str]) -> list[str]:
        unknown = [v for v in values if v not in allowed]
        if unknown:
            raise ValueError(f"{unknown[0]!r} not in {allowed}")
        return values

    return AfterValidator(check)


class VeerEvalParams(Params):
    """`veer_eval`: every defense beside No-Defense on the arena's sets (Veer 4.2-4.3, Tables 1-3,
    11-17, Figure 3); the base agent, seed, browsers and step timeout are `arena_eval`'s."""

    sets: list[str]
    methods: Annotated[list[str], AfterValidator(registry.check_names)]  # stacks: a+b
    # Veer's reasoner: offline (deterministic code) | a model spec of an OpenAI-compatible endpoint
    reasoner: Annotated[str | dict[str, Any], PER_PROFILE]
    defense_actions: int  # a defense's internal actions per episode (Veer paper C.3: 8)
    dude_experience: str | None  # DUDE-S2's Stage-2 experience file (None: none)
    # Table 3/17: agent-model configurations beyond the default agent, by name: an agent spec
    # (offline | {offline: {epsilon: E}} | a model spec); each runs No-Defense and Veer
    configurations: Annotated[dict[str, str | dict[str, Any]], PER_PROFILE]
    configuration_sets: list[str]
    # every method on arena-synth's eval split too (sites no rule was developed on; reported only)
    arena_synth_eval: bool = True


class VeerAblationsParams(Params):
    """`veer_ablations`: Veer's variants on TrickyArena-Single (Veer 4.4, Tables 18-19)."""

    set: str
    variants: Annotated[list[str], _names(registry.VARIANTS)]


class ParallelParams(Params):
    """`parallel`: where the guard's and the arena's episodes run (their sizes:
    `guard_eval.workers`, `arena_eval.workers`)."""

    executor: Literal["processes", "ray"]  # processes of this machine | Ray actors (a cluster)
    ray_address: str | None  # None: a local Ray on 127.0.0.1 | "auto" | "ray://head:10001"
    gpus_per_worker: Annotated[float, Field(ge=0)]  # ray: GPUs an actor reserves for its models


SECTIONS: dict[str, type[Params]] = {
    "base": BaseParams,
    "data": DataParams,
    "parallel": ParallelParams,
    "build_models": BuildModelsParams,
    "models": ModelTable,
    "stage1": Stage1Params,
    "stage2": Stage2Params,
    "guard_eval": GuardEvalParams,
    "ablations": AblationsParams,
    "arena_eval": ArenaEvalParams,
    "arena_synth": ArenaSynthParams,
    "veer_eval": VeerEvalParams,
    "veer_ablations": VeerAblationsParams,
}
PER_PROFILE_SECTIONS = frozenset({"models"})


def field_kind(info: FieldInfo) -> str:
    """`seed` (from base.seed), `profile` (written per profile) or `plain`."""
    if BASE_SEED in info.metadata:
        return "seed"
    return "profile" if PER_PROFILE in info.metadata else "plain"

"""Stage 1 under `accelerate launch`: trl's own distributed path, configured from params.

With `stage1.launch.num_processes` 1, DDP and vLLM off, GRPO trains in the calling process.
Otherwise the job (the training rows, the settings) is written to the run's folder, an accelerate
config is written beside it from `stage1.launch` (DDP, or DeepSpeed ZeRO-2), and `accelerate
launch` starts `num_processes` copies of this module's `main`: each runs `train_grpo` on its share
of every batch; the main process alone saves the adapter and the log history, which the caller
reads back.

On a machine without GPUs, accelerate's `--cpu` launcher starts a single process unless MPI is
installed; the config then asks for its multi-process (torchrun) launcher and the trainer's
`use_cpu` makes the processes talk through gloo, which is how a CPU-only test of the distributed
path runs (`tests/test_stage1_launch.py`).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from darkguard.config import GRPOParams, LaunchParams, RewardParams
from darkguard.io import InputError, read_json, write_json
from darkguard.training.dude.stage1 import train_grpo

JOB_FILE, CONFIG_FILE, LOG_FILE = "job.pkl", "accelerate.yaml", "log_history.json"


@dataclass
class GRPOJob:
    """Everything `train_grpo` takes, picklable for the launched processes."""

    model_path: str
    rows: list[dict]
    adapter_dir: Path
    checkpoint_dir: Path
    params: GRPOParams
    reward: RewardParams
    seed: int
    device: str = "cpu"
    reward_funcs: list = field(default_factory=list)  # module-level functions (tests only)


def accelerate_config(launch: LaunchParams, device: str, bf16: bool) -> dict[str, Any]:
    """The accelerate config `stage1.launch` asks for (as `accelerate config` would write it)."""
    config: dict[str, Any] = {
        "compute_environment": "LOCAL_MACHINE",
        "num_machines": 1,
        "machine_rank": 0,
        "num_processes": launch.num_processes,
        "main_process_ip": "127.0.0.1",
        "main_process_port": launch.main_process_port,
        "rdzv_backend": "static",
        "same_network": True,
        "mixed_precision": "bf16" if bf16 else "no",
        "use_cpu": False,  # see the module's note: the trainer's use_cpu picks gloo on CPU
        "downcast_bf16": "no",
    }
    if launch.distributed == "deepspeed_zero2":
        if device == "cpu":
            raise InputError("stage1.launch.distributed: deepspeed_zero2 needs GPUs (use ddp)")
        config["distributed_type"] = "DEEPSPEED"
        config["deepspeed_config"] = {
            "zero_stage": 2,
            "offload_optimizer_device": "none",
            "offload_param_device": "none",
            "zero3_init_flag": False,
            "gradient_clipping": "auto",
            "gradient_accumulation_steps": "auto",
        }
    else:  # torchrun's environment even for one process: trl's colocated vLLM needs it
        config["distributed_type"] = "MULTI_GPU"
    return config


def train(job: GRPOJob, launch: LaunchParams, work_dir: Path) -> list[dict]:
    """Train as `launch` says; trl's log history (one entry per logged step)."""
    vllm = launch.vllm if launch.vllm.enabled else None
    if launch.default and launch.distributed == "ddp":
        return train_grpo(*_arguments(job)).log_history
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    (work_dir / LOG_FILE).unlink(missing_ok=True)
    with open(work_dir / JOB_FILE, "wb") as fh:
        pickle.dump((job, vllm), fh)
    config = accelerate_config(launch, job.device, job.params.bf16)
    (work_dir / CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=True))
    command = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--config_file",
        str(work_dir / CONFIG_FILE),
        "-m",
        "darkguard.training.dude.launch",
        str(work_dir),
    ]
    done = subprocess.run(command, env={**os.environ, "PYTHONHASHSEED": "0"}, check=False)
    if done.returncode != 0 or not (work_dir / LOG_FILE).is_file():
        raise RuntimeError(
            f"accelerate launch of Stage 1 failed (exit {done.returncode}); command: "
            + " ".join(command)
        )
    (work_dir / JOB_FILE).unlink()  # the rows and their images: not needed any more
    return read_json(work_dir / LOG_FILE)


def _arguments(job: GRPOJob) -> tuple:
    return (
        job.model_path,
        job.rows,
        job.adapter_dir,
        job.checkpoint_dir,
        job.params,
        job.reward,
        job.seed,
        job.device,
        job.reward_funcs or None,
    )


def main(argv: list[str]) -> int:
    """One launched process: train its share; the main process writes the log history."""
    work_dir = Path(argv[0])
    with open(work_dir / JOB_FILE, "rb") as fh:
        job, vllm = pickle.load(fh)  # written by `train` in the parent process
    run = train_grpo(*_arguments(job), vllm=vllm)
    if int(os.environ.get("RANK", "0")) == 0:
        write_json(work_dir / LOG_FILE, run.log_history)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""scripts/gpu_check_summary.py: the tables a lent GPU machine's run ends with, also when some
steps failed or were skipped (a crash there would cost the session its figures)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "gpu_check_summary.py"
spec = importlib.util.spec_from_file_location("gpu_check_summary", SCRIPT)
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)


def test_statuses_are_read_from_the_three_kinds_of_line(tmp_path):
    (tmp_path / "steps.txt").write_text(
        "PASS  bench_scaling (12 s)\n"
        "FAIL  bench_ppo (130 s): timed out after 130 s, see out/bench_ppo.log\n"
        "SKIP  representations_cuda: dry run\n"
    )
    assert summary.read_statuses(tmp_path / "steps.txt") == {
        "bench_scaling": "PASS (12 s)",
        "bench_ppo": "FAIL (130 s): timed out after 130 s, see out/bench_ppo.log",
        "representations_cuda": "SKIP dry run",
    }


def test_tables_and_the_steps_without_results():
    scaling = {
        "env": "llvm-autophase-ic-v0",
        "cores": 16,
        "rows": [
            {"num_envs": n, "threads": t, "steps_per_env": 4, "steps_per_s": r, "efficiency": e}
            for n, t, r, e in [(64, 1, 1000.0, 1.0), (64, 16, 15200.0, 0.95), (4096, 1, 900, 1.0)]
        ],
    }
    representations = {
        "envs": 1024,
        "baseline_reset_s": 0.01,
        "rows": [
            {"space": "Programl", "device": "cpu", "obs_per_s": 5000.0, "handoff_s": 0.002},
            {
                "space": "Programl",
                "device": "cuda",
                "obs_per_s": 6000.0,
                "handoff_s": 0.001,
                "vs_cpu": 1.2,
            },
        ],
    }
    text = summary.render(
        {"bench_scaling": scaling, "bench_representations": representations, "bench_ppo": None},
        {"bench_ppo": "SKIP no torch", "bench_scaling": "PASS (3 s)"},
        "NVIDIA H100 80GB HBM3",
        16,
        "2026-11-27",
    )
    assert text.startswith("### NVIDIA H100 80GB HBM3, 16 cores")
    assert "| 64 | 4 | 1,000 (1.00) | 15,200 (0.95) |" in text
    assert "| 4,096 | 4 | 900 (1.00) | - |" in text  # a point that did not run
    assert "| Programl | 5,000 | 6,000 | 1.20 | 2.0 | 1.0 |" in text
    assert "Isolated executor against in-process: not measured, the step did not run." in text
    assert "PPO training: not measured, SKIP no torch." in text
    assert "Skipped or failed: bench_ppo: SKIP no torch." in text


def test_the_loop_tool_table_has_the_split_and_the_share_of_the_peak():
    row = {
        "log2_size": 26,
        "measured": 1000,
        "seconds": 41.5,
        "schedules_per_s": 24.1,
        "best_bandwidth_gbps": 3100.0,
        "copy_peak_gbps": 3200.0,
        "share_of_peak": 0.96875,
        "split_ms_per_schedule": {
            "compile": 30.0,
            "module_load": 12.5,
            "check": 1.0,
            "timing": 2.5,
        },
    }
    without_split = {k: v for k, v in row.items() if k != "split_ms_per_schedule"}
    text = summary.render(
        {"bench_loop_tool": {"cuda": row, "cpu": without_split}},
        {"bench_loop_tool": "PASS (60 s)"},
        "NVIDIA H200",
        16,
        "2026-11-28",
    )
    assert (
        "| cuda | 2^26 | 1,000 | 41.5 | 24.10 | 3100.0 | 3200.0 | 96.9% | 30.0 (12.5), 1.0, 2.5 |"
        in text
    )
    assert "| cpu | 2^26 | 1,000 | 41.5 | 24.10 | 3100.0 | 3200.0 | 96.9% | - |" in text
    fast = {**row, "timing_budget_s": 0.02, "ptxas": True}
    text = summary.render({"bench_loop_tool": {"cuda": fast}}, {}, "NVIDIA H100", 16, "2026-11-28")
    assert "| cuda (20 ms timing, ptxas) | 2^26 | 1,000 |" in text


def test_the_gnn_table_sets_the_two_agents_side_by_side():
    agent = {"env_steps_per_s": 959.86, "policy_obs_per_s": 2066.96, "train_steps_per_s": 428.6}
    mlp = {"env_steps_per_s": 1790.7, "policy_obs_per_s": 30491.5, "train_steps_per_s": 1317.51}
    flags = {"num_envs": 16, "device": "cuda", "seconds": 20.0}
    text = summary.render(
        {"bench_gnn": {"flags": flags, "mlp": mlp, "gnn": agent}}, {}, "NVIDIA H100", 16, "d"
    )
    assert "16 envs, device cuda, 20 s of PPO training each" in text
    assert "| Autophase MLP | 1,791 | 30,492 | 1,317.5 |" in text
    assert "| ProGraML GNN | 960 | 2,067 | 428.6 |" in text


def test_training_rows_and_the_targets(tmp_path):
    (tmp_path / "training_256.json").write_text(
        '[{"agent": "gnn", "num_envs": 256, "threads": 16, "device": "cuda",'
        ' "env_steps_per_s": 8000.0, "train_steps_per_s": 4000.0}]'
    )
    (tmp_path / "training_1024.json").write_text(
        '[{"agent": "mlp", "num_envs": 1024, "threads": 16, "device": "cuda",'
        ' "env_steps_per_s": 10000.0, "train_steps_per_s": 9000.0},'
        ' {"agent": "gnn", "num_envs": 1024, "threads": 16, "device": "cuda",'
        ' "env_steps_per_s": 10000.0, "train_steps_per_s": 6500.0}]'
    )
    (tmp_path / "training_4096.json").write_text("not json")  # a step that died mid-write
    training = summary.read_training(tmp_path)
    assert [r["num_envs"] for r in training["rows"]] == [1024, 1024, 256]
    scaling = {
        "env": "llvm-autophase-ic-v0",
        "rows": [
            {"num_envs": n, "threads": t, "steps_per_env": 4, "steps_per_s": 1.0, "efficiency": e}
            for n, t, e in [(64, 16, 0.5), (1024, 16, 0.93), (4096, 16, 0.91), (1024, 8, 0.2)]
        ],
    }
    isolation = {"rows": [{"num_envs": 64, "threads": 16, "steps_per_s": 1.0}]}
    results = {"bench_training": training, "bench_scaling": scaling, "bench_isolation": isolation}
    assert summary.targets(results) == [
        ("scaling", 0.91),  # the lowest at 16 threads from 1,024 envs: 64 envs do not count
        ("isolation", None),  # a row without its isolated figure
        ("gnn_training", 0.65),
        ("gnn_graphs", None),
    ]
    text = summary.render(results, {}, "NVIDIA H100 80GB HBM3", 16, "2026-12-07")
    assert "| gnn | 256 | 16 | cuda | 8,000 | 4,000 | 0.50 |" in text
    assert "| GNN training / env steps/s at 1,024 envs | 0.70 | 0.65 | NO |" in text
    assert "| sync step efficiency at the most threads, 1,024+ envs | 0.90 | 0.91 | yes |" in text
    assert "| GNN forward graphs/s | 20,000 | - | not measured |" in text

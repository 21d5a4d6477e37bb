"""After training: final-vs-best check, test evaluation, ``summary.json``."""

from __future__ import annotations

import time

from skillopt import __version__
from skillopt.gates import Evaluation
from skillopt.records import skill_hash
from skillopt.engine.evaluation import breakdown
from skillopt.engine.rundir import read_json, write_json
from skillopt.engine.subsets import subset


def finish(trainer, current: str, current_eval: Evaluation, stopped: str | None = None) -> dict:
    st, cfg = trainer.state, trainer.cfg
    best = trainer.rundir.best_skill.read_text(encoding="utf-8")
    final_val = current_eval
    if stopped is None and cfg.evaluation.eval_test and skill_hash(current) != st.best_hash:
        trainer.reporter.phase("final")
        final_val = trainer.evaluate_val(current, trainer.rundir.root / "final_selection_eval", "val: final skill")
        score = trainer.gate.score(final_val)
        if score > st.best_score:
            trainer.set_best(current, score, st.last_completed_step, "final_promoted")
            best = current
    test: dict[str, dict] = {}
    if stopped is None and cfg.evaluation.eval_test:
        tasks = subset(trainer.env.tasks("test"), cfg.evaluation.test_env_num, cfg.train.seed)
        initial = trainer.skill_at(trainer.rundir.skill_version(0).relative_to(trainer.rundir.root).as_posix())
        seen: dict[str, dict] = {}
        for name, skill, folder in (
            ("initial", initial, "test_eval_baseline"),
            ("best", best, "test_eval"),
            ("final", current, "test_eval_final"),
        ):
            h = skill_hash(skill)
            if h not in seen:
                trainer.reporter.phase(f"test: {name} skill")
                evaluation, rollouts = trainer.evaluator.evaluate(skill, tasks, trainer.rundir.root / folder, split="test", label=f"test: {name} skill")
                if rollouts is None:
                    rollouts = trainer.evaluator.load_rollouts(skill, tasks, split="test")
                entry = {"hard": evaluation.hard, "soft": evaluation.soft, "n": evaluation.n, "skill_hash": h,
                         "by_task_type": breakdown(rollouts)}
                write_json(trainer.rundir.root / folder / "summary.json", entry)
                seen[h] = entry
            test[name] = seen[h]
    history = read_json(trainer.rundir.history, []) or []
    actions = [h.get("action", "") for h in history]
    st.status = "budget_exhausted" if stopped else "finished"
    trainer.save_state()
    totals = trainer.ledger.totals()
    summary = {
        "version": f"skillopt-core-{__version__}",
        "status": st.status,
        "stopped_reason": stopped or "",
        "env": trainer.env.name,
        "out_dir": str(trainer.rundir.root),
        "best_skill": str(trainer.rundir.best_skill),
        "gate": {"name": trainer.gate.name, "metric": cfg.evaluation.gate_metric, "use_gate": cfg.evaluation.use_gate},
        "val": {
            "n": len(trainer.val_tasks),
            "baseline_gate_score": st.baseline_score,
            "best_gate_score": st.best_score,
            "final_gate_score": trainer.gate.score(final_val),
            "final_hard": final_val.hard,
            "final_soft": final_val.soft,
        },
        "best_step": st.best_step,
        "best_origin": st.best_origin,
        "current_origin": st.current_origin,
        "total_steps": trainer.total_steps,
        "steps_completed": st.last_completed_step,
        "total_accepts": sum(1 for a in actions if a in ("accept", "accept_new_best")),
        "total_force_accepts": actions.count("force_accept"),
        "total_rejects": actions.count("reject"),
        "total_skips": sum(1 for a in actions if a.startswith("skip")),
        "test": test,
        "test_delta_hard": (test["best"]["hard"] - test["initial"]["hard"]) if test else None,
        "final_test_delta_hard": (test["final"]["hard"] - test["initial"]["hard"]) if test else None,
        "val_test_gap_best": (st.best_score - test["best"]["hard"]) if test and cfg.evaluation.gate_metric == "hard" else None,
        "usage": {
            "calls": totals.calls, "cached_calls": totals.cached_calls, "failed_calls": totals.failed_calls,
            "prompt_tokens": totals.prompt_tokens, "completion_tokens": totals.completion_tokens,
            "cost_usd": totals.cost_usd, "unpriced_calls": totals.unpriced_calls, "by_stage": totals.by_stage,
        },
        "optimizer_prompt_tokens_per_step": _per_step(history, "optimizer_prompt_tokens"),
        "total_wall_time_s": round(st.wall_time_s, 2),
        "config": trainer.config_data,
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    write_json(trainer.rundir.summary, summary)
    trainer.reporter.line(_final_line(summary))
    return summary


def _per_step(history: list[dict], key: str) -> float:
    values = [h.get(key, 0) for h in history]
    return round(sum(values) / len(values), 1) if values else 0.0


def _final_line(s: dict) -> str:
    parts = [f"done ({s['status']}): best skill {s['best_skill']} (from {s['best_origin']})",
             f"val {s['val']['baseline_gate_score']:.3f} -> {s['val']['best_gate_score']:.3f}"]
    if s["test"]:
        parts.append(f"test hard initial {s['test']['initial']['hard']:.3f} -> best {s['test']['best']['hard']:.3f}")
    return "; ".join(parts)

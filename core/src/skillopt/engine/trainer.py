"""The training loop.

One step: roll out a batch with the current skill, reflect, merge, select, apply, and
gate the candidate on validation items. Everything a resumed run needs is on disk
after each stage; every decision derives from the seed and saved files, so a killed
and resumed run ends exactly where an uninterrupted one would.
"""

from __future__ import annotations

import time
from pathlib import Path

from skillopt.calls import Ledger, LedgerTotals
from skillopt.config.schema import RunConfig
from skillopt.envs import Env
from skillopt.errors import BudgetExceeded, ConfigError
from skillopt.gates import Evaluation, Gate
from skillopt.policies import EditPolicy, OptimizerContext
from skillopt.records import StepRecord, Verdict, skill_hash
from skillopt.serde import from_data, to_data
from skillopt.engine import epoch as epoch_stage
from skillopt.engine.buffer import make_entry, render_buffer
from skillopt.engine.evaluation import Evaluator, ScoreBook
from skillopt.engine.observers import Observers, RunInfo
from skillopt.engine.optimize import propose
from skillopt.engine.plan import batch_seed, check_train_size, epoch_batches, scheduled_budget, steps_per_epoch
from skillopt.engine.progress import NullReporter
from skillopt.engine.rollouts import RolloutRunner
from skillopt.engine.rundir import RunDir, read_json, write_json
from skillopt.engine.state import TrainState
from skillopt.engine.subsets import subset


class Trainer:
    def __init__(
        self,
        *,
        cfg: RunConfig,
        env: Env,
        target,
        optimizer,
        policy: EditPolicy,
        gate: Gate,
        out_dir: Path,
        ledger: Ledger | None = None,
        reporter=None,
        observers: Observers | None = None,
        config_data: dict | None = None,
    ):
        self.cfg, self.env, self.policy, self.gate = cfg, env, policy, gate
        self.target, self.optimizer = target, optimizer
        self.rundir = RunDir(out_dir).ensure()
        self.ledger = ledger or getattr(target, "ledger", None) or Ledger()
        self.reporter = reporter or NullReporter()
        self.observers = observers or Observers()
        self.config_data = config_data or {}
        self.runner = RolloutRunner(env, target, workers=cfg.env.workers, timeout_s=cfg.env.exec_timeout, reporter=self.reporter)
        self.evaluator = Evaluator(self.runner, ScoreBook(self.rundir.scores), seed=cfg.train.seed)
        self.run_info = RunInfo(out_dir=self.rundir.root, env=env.name, mode="train", config=self.config_data)
        self.state = TrainState()
        self._started = time.monotonic()

    # ------------------------------------------------------------------ data

    def load_data(self) -> None:
        self.train_tasks = self.env.tasks("train")
        check_train_size(self.train_tasks, self.cfg.train)
        val = self.env.tasks("val")
        if not val:
            raise ConfigError("the val split is empty; the gate needs validation items")
        self.val_tasks = subset(val, self.cfg.evaluation.sel_env_num, self.cfg.train.seed)
        self.task_index = {t.id: t for t in [*self.train_tasks, *self.val_tasks]}
        self.spe = steps_per_epoch(len(self.train_tasks), self.cfg.train)
        self.schedule_steps = self.cfg.train.num_epochs * self.spe  # the LR schedule ignores max_steps (a stop)
        self.total_steps = self.schedule_steps
        if self.cfg.train.max_steps:
            self.total_steps = min(self.total_steps, self.cfg.train.max_steps)

    # ------------------------------------------------------------------ helpers

    def skill_at(self, path: str) -> str:
        return (self.rundir.root / path).read_text(encoding="utf-8")

    def evaluate_val(self, skill: str, folder: Path, label: str) -> Evaluation:
        evaluation, _ = self.evaluator.evaluate(
            skill, self.val_tasks, folder, split="val", repeats=self.cfg.evaluation.gate_repeats, label=label
        )
        return evaluation

    def save_state(self) -> None:
        self.state.ledger = to_data(self.ledger.totals())
        self.state.wall_time_s = self._prior_wall + (time.monotonic() - self._started)
        write_json(self.rundir.state, to_data(self.state))

    def context(self, skill: str, budget: int | None, seed: int) -> OptimizerContext:
        return OptimizerContext(
            client=self.optimizer,
            skill=skill,
            budget=budget,
            config=self.cfg,
            step_history=render_buffer(self.state.step_buffer),
            meta_skill=self.state.meta_skill,
            prompt_override=self.env.prompt,
            seed=seed,
        )

    def set_current(self, skill: str, evaluation: Evaluation, origin: str, path: str) -> None:
        self.state.current_skill_path = path
        self.state.current_hash = skill_hash(skill)
        self.state.current_score = self.gate.score(evaluation)
        self.state.current_origin = origin

    def set_best(self, skill: str, score: float, step: int, origin: str) -> None:
        self.rundir.write_skill(self.rundir.best_skill, skill)
        self.state.best_skill_path = self.rundir.best_skill.name
        self.state.best_hash, self.state.best_score = skill_hash(skill), score
        self.state.best_step, self.state.best_origin = step, origin

    # ------------------------------------------------------------------ start / resume

    def start(self, fingerprint: str) -> tuple[str, Evaluation]:
        saved = read_json(self.rundir.state)
        self._prior_wall = 0.0
        if saved is not None:
            self.state = from_data(saved, TrainState)
            self._prior_wall = self.state.wall_time_s
            if self.state.ledger:
                self.ledger.restore(from_data(self.state.ledger, LedgerTotals))
            current = self.skill_at(self.state.current_skill_path)
            self.state.config_fingerprint = fingerprint
            self.state.status = "running"
            return current, self.evaluate_val(current, self.rundir.root / "selection_eval_resume", "val (resume)")
        initial = self.env.initial_skill()
        v0 = self.rundir.skill_version(0)
        self.rundir.write_skill(v0, initial)
        self.state.config_fingerprint = fingerprint
        self.state.initial_hash = skill_hash(initial)
        self.reporter.phase("baseline")
        baseline = self.evaluate_val(initial, self.rundir.root / "selection_eval_baseline", "val: initial skill")
        self.set_current(initial, baseline, "initial_skill", str(v0.relative_to(self.rundir.root)))
        self.state.baseline_score = self.state.current_score
        self.set_best(initial, self.state.current_score, 0, "initial_skill")
        self.save_state()
        return initial, baseline

    # ------------------------------------------------------------------ loop

    def train(self, fingerprint: str = "") -> dict:
        from skillopt.engine.final import finish

        self.load_data()
        self.observers.run_started(self.run_info)
        current, current_eval = self.start(fingerprint)
        self.reporter.line(
            f"baseline val {self.cfg.evaluation.gate_metric} {self.state.baseline_score:.3f} "
            f"on {len(self.val_tasks)} items; {self.total_steps} steps planned"
        )
        step = 0
        try:
            for ep in range(1, self.cfg.train.num_epochs + 1):
                if self.state.buffer_epoch != ep:
                    self.state.step_buffer, self.state.buffer_epoch = [], ep
                for j, micro in enumerate(epoch_batches(self.train_tasks, self.cfg.train, ep)):
                    step += 1
                    if step > self.total_steps:
                        break
                    if step <= self.state.last_completed_step:
                        continue
                    self.ledger.check()
                    current, current_eval = self.run_step(step, ep, j, micro, current, current_eval)
                if step > self.total_steps:
                    break
                if ep not in self.state.epochs_done:
                    current, current_eval = self.epoch_boundary(ep, current, current_eval)
            summary = finish(self, current, current_eval)
        except BudgetExceeded as exc:
            self.state.status = "budget_exhausted"
            self.save_state()
            self.reporter.line(f"[yellow]stopped:[/yellow] {exc}. State saved; raise the budget and re-run to resume.")
            summary = finish(self, current, current_eval, stopped=str(exc))
        self.observers.run_finished(self.run_info, summary)
        return summary

    def run_step(self, step: int, ep: int, j: int, micro, current: str, current_eval: Evaluation):
        t0 = time.monotonic()
        timing: dict[str, float] = {}
        before = self.ledger.totals()
        sdir = self.rundir.step_dir(step)
        self.reporter.phase(f"epoch {ep}/{self.cfg.train.num_epochs} step {step}/{self.total_steps}")
        scheduled = scheduled_budget(step, self.schedule_steps, self.cfg.optimizer)
        told = scheduled if scheduled is not None or self.cfg.optimizer.lr_control_mode != "autonomous" else self.cfg.optimizer.learning_rate
        seed = batch_seed(self.cfg.train.seed, ep, j)
        groups, rollouts = [], []
        for a, batch in enumerate(micro):
            folder = sdir if len(micro) == 1 else sdir / f"batch_{a}"
            got = self.runner.run(batch, current, folder / "rollout", training=True, seed=seed + 100 * a, label="rollout")
            groups.append((folder, got))
            rollouts += got
        timing["rollout_s"] = time.monotonic() - t0
        ctx = self.context(current, told, seed)
        t1 = time.monotonic()
        proposal = propose(self.policy, ctx, rollouts, self.task_index, sdir, seed=seed, scheduled=told, micro_rollouts=groups)
        timing["optimize_s"] = time.monotonic() - t1
        verdict: Verdict | None = None
        cand_eval: Evaluation | None = None
        score_before = self.state.current_score
        if proposal.merged is None or (proposal.merged.size == 0 and not proposal.merged.appendix_notes):
            action = "skip_no_patches"
        elif proposal.candidate == current:
            action = "skip_no_rewrite" if self.policy.name != "patch" else "skip_no_change"
        else:
            t2 = time.monotonic()
            self.reporter.phase(f"epoch {ep} step {step}: gate")
            cand_eval = self.evaluate_val(proposal.candidate, sdir / "selection_eval", "val: candidate")
            verdict = self.decide(current_eval, cand_eval)
            write_json(sdir / "gate_verdict.json", to_data(verdict))
            timing["gate_s"] = time.monotonic() - t2
            action = verdict.action
            if verdict.accepted:
                path = str(self.rundir.skill_version(step).relative_to(self.rundir.root))
                current, current_eval = proposal.candidate, cand_eval
                self.set_current(current, cand_eval, f"step_{step:04d}", path)
                if self.state.current_score > self.state.best_score:
                    self.set_best(current, self.state.current_score, step, f"step_{step:04d}")
                    action = "accept_new_best" if not verdict.forced else "force_accept"
        self.rundir.write_skill(self.rundir.skill_version(step), current)
        if action.startswith("accept") or action == "force_accept":
            self.state.current_skill_path = str(self.rundir.skill_version(step).relative_to(self.rundir.root))
        entry = make_entry(step, action, rollouts, proposal.patches, proposal.results, score_before,
                           self.gate.score(cand_eval) if cand_eval is not None else None)
        self.state.step_buffer.append(entry)
        record = self.step_record(step, ep, j, action, rollouts, proposal, verdict, cand_eval, before, timing, t0, current)
        write_json(sdir / "step_record.json", to_data(record))
        history = [h for h in (read_json(self.rundir.history, []) or []) if h.get("step") != step]
        write_json(self.rundir.history, [*history, to_data(record)])
        self.state.last_completed_step = step
        self.save_state()
        self.observers.step_finished(self.run_info, record)
        self.reporter.line(self.step_line(record, proposal))
        return current, current_eval

    def decide(self, current_eval: Evaluation, cand_eval: Evaluation) -> Verdict:
        if self.cfg.evaluation.use_gate:
            return self.gate.decide(current_eval, cand_eval)
        cur, cand = self.gate.score(current_eval), self.gate.score(cand_eval)
        return Verdict(accepted=True, action="force_accept", metric=self.cfg.evaluation.gate_metric, current_score=cur,
                       candidate_score=cand, forced=True, n_items=cand_eval.n,
                       reason="evaluation.use_gate=false: accepted without comparison (validation still measured)")

    def step_record(self, step, ep, j, action, rollouts, proposal, verdict, cand_eval, before, timing, t0, current) -> StepRecord:
        after = self.ledger.totals()
        statuses = [r.status for r in proposal.results]
        opt_prompt = sum(v["prompt_tokens"] for k, v in after.by_stage.items() if k.startswith("optimizer/")) - sum(
            v["prompt_tokens"] for k, v in before.by_stage.items() if k.startswith("optimizer/"))
        return StepRecord(
            step=step, epoch=ep, step_in_epoch=j + 1, action=action, edit_budget=proposal.budget if proposal.budget is not None else -1,
            rollout_hard=sum(r.score.hard for r in rollouts) / max(len(rollouts), 1),
            rollout_soft=sum(r.score.soft for r in rollouts) / max(len(rollouts), 1),
            rollout_n=len(rollouts), rollout_errors=sum(1 for r in rollouts if r.status != "ok"),
            n_failure_patches=sum(1 for p in proposal.patches if p.source_type == "failure"),
            n_success_patches=sum(1 for p in proposal.patches if p.source_type == "success"),
            reflect_failures=proposal.reflect_failures, n_edits_proposed=proposal.n_proposed,
            n_edits_merged=proposal.merged.size if proposal.merged else 0,
            n_edits_selected=proposal.selected.size if proposal.selected else 0,
            n_edits_applied=statuses.count("applied"), n_edits_not_applied=len(statuses) - statuses.count("applied"),
            candidate_hash=skill_hash(proposal.candidate), candidate_len=len(proposal.candidate),
            selection_hard=cand_eval.hard if cand_eval else None, selection_soft=cand_eval.soft if cand_eval else None,
            candidate_gate_score=self.gate.score(cand_eval) if cand_eval else None, verdict=verdict,
            current_score=self.state.current_score, best_score=self.state.best_score, best_step=self.state.best_step,
            current_origin=self.state.current_origin, best_origin=self.state.best_origin, skill_len=len(current),
            prompt_tokens=after.prompt_tokens - before.prompt_tokens,
            completion_tokens=after.completion_tokens - before.completion_tokens,
            optimizer_prompt_tokens=opt_prompt, calls=after.calls - before.calls,
            cost_usd=round(after.cost_usd - before.cost_usd, 8), timing={k: round(v, 3) for k, v in timing.items()},
            wall_time_s=round(time.monotonic() - t0, 3), notes=tuple(proposal.notes),
        )

    def step_line(self, rec: StepRecord, proposal) -> str:
        colour = {"accept": "green", "accept_new_best": "green", "force_accept": "yellow", "reject": "red"}.get(rec.action, "dim")
        gate = f" val {rec.candidate_gate_score:.3f} vs {rec.verdict.current_score:.3f}" if rec.verdict else ""
        return (
            f"step {rec.step}/{self.total_steps} (epoch {rec.epoch}): [{colour}]{rec.action}[/{colour}]{gate} · "
            f"train {rec.rollout_hard:.2f} · edits {rec.n_edits_applied}/{rec.n_edits_selected} applied "
            f"(B={rec.edit_budget}) · {rec.calls} calls, {rec.prompt_tokens + rec.completion_tokens} tok"
            + (f", ${rec.cost_usd:.4f}" if rec.cost_usd else "")
        )

    # ------------------------------------------------------------------ epoch boundary

    def epoch_boundary(self, ep: int, current: str, current_eval: Evaluation):
        o = self.cfg.optimizer
        prev_path = self.state.epoch_end_skills.get(str(ep - 1))
        if ep >= 2 and prev_path and (o.use_slow_update or o.use_meta_skill):
            self.reporter.phase(f"epoch {ep}: slow update / meta skill")
            prev = self.skill_at(prev_path)
            pairs = epoch_stage.comparison_pairs(self, ep, prev, current)
            ctx = self.context(current, None, self.cfg.train.seed + 5000 * ep)
            if o.use_slow_update:
                candidate = epoch_stage.slow_update(self, ep, ctx, prev, pairs)
                if candidate is not None and candidate != current:
                    current, current_eval = self.adopt_slow_update(ep, current, current_eval, candidate)
            if o.use_meta_skill:
                self.state.meta_skill = epoch_stage.meta_skill(self, ep, ctx, prev, pairs, self.state.meta_skill)
        path = self.rundir.root / "skills" / f"epoch_{ep:02d}_end.md"
        self.rundir.write_skill(path, current)
        self.state.epoch_end_skills[str(ep)] = str(path.relative_to(self.rundir.root))
        self.state.epochs_done.append(ep)
        self.save_state()
        return current, current_eval

    def adopt_slow_update(self, ep: int, current: str, current_eval: Evaluation, candidate: str):
        folder = self.rundir.epoch_dir("slow_update", ep)
        cand_eval = self.evaluate_val(candidate, folder / "selection_eval", "val: slow update")
        if self.cfg.optimizer.slow_update_gate_with_selection and self.cfg.evaluation.use_gate:
            verdict = self.gate.decide(current_eval, cand_eval)
        else:
            verdict = Verdict(
                accepted=True, action="force_accept", forced=True, metric=self.cfg.evaluation.gate_metric,
                current_score=self.gate.score(current_eval), candidate_score=self.gate.score(cand_eval), n_items=cand_eval.n,
                reason="slow update force-accepted (optimizer.slow_update_gate_with_selection=false); its val score was re-measured",
            )
        write_json(folder / "gate_verdict.json", to_data(verdict))
        self.reporter.line(f"epoch {ep} slow update: {'accepted' if verdict.accepted else 'rejected'} "
                           f"(val {verdict.candidate_score:.3f} vs {verdict.current_score:.3f})")
        if not verdict.accepted:
            return current, current_eval
        path = self.rundir.root / "skills" / f"slow_update_epoch_{ep:02d}.md"
        self.rundir.write_skill(path, candidate)
        self.set_current(candidate, cand_eval, f"slow_update_epoch_{ep:02d}", str(path.relative_to(self.rundir.root)))
        if self.state.current_score > self.state.best_score:
            self.set_best(candidate, self.state.current_score, self.state.last_completed_step, f"slow_update_epoch_{ep:02d}")
        return candidate, cand_eval

"""The epoch boundary: ``slow_update`` (gated or force-accepted) and ``meta_skill``.

Both compare the skill at the end of the previous epoch with the skill now on the
same sampled train items; the trainer commits what they return.
"""

from __future__ import annotations

from skillopt.engine.context import RunContext
from skillopt.engine.stages.gate import gate
from skillopt.engine.stages.meta_skill import meta_skill
from skillopt.engine.stages.slow_update import comparison_pairs, slow_update


def epoch_boundary(trainer, run: RunContext, ep: int, current: str) -> str:
    o, st = trainer.cfg.optimizer, trainer.state
    prev_path = st.epoch_end_skills.get(str(ep - 1))
    if ep >= 2 and prev_path and (o.use_slow_update or o.use_meta_skill):
        run.reporter.phase(f"epoch {ep}: slow update / meta skill")
        prev = trainer.skill_at(prev_path)
        before = trainer.current(current)  # both updates see the skill as the epoch ended
        pairs = comparison_pairs(run, ep, prev, current)
        if o.use_slow_update:
            proposal = slow_update(run, ep, before, prev, pairs)
            if proposal.status == "ok" and proposal.candidate != current:
                current = adopt_slow_update(trainer, run, ep, before, current, proposal.candidate)
        if o.use_meta_skill:
            result = meta_skill(run, ep, before, prev, pairs)
            if result.status == "ok" and result.content:
                st.meta_skill = result.content
    path = trainer.rundir.root / "skills" / f"epoch_{ep:02d}_end.md"
    trainer.rundir.write_skill(path, current)
    st.epoch_end_skills[str(ep)] = str(path.relative_to(trainer.rundir.root))
    st.epochs_done.append(ep)
    trainer.save_state()
    return current


def adopt_slow_update(trainer, run: RunContext, ep: int, before, current: str, candidate: str) -> str:
    o, e = trainer.cfg.optimizer, trainer.cfg.evaluation
    gated = o.slow_update_gate_with_selection and e.use_gate
    reason = "" if gated else (
        "slow update force-accepted (optimizer.slow_update_gate_with_selection=false); its val score was re-measured")
    folder = trainer.rundir.epoch_dir("slow_update", ep) / "gate"
    result = gate(run, folder, before, candidate, label="val: slow update", force_reason=reason)
    verdict = result.verdict
    run.reporter.line(f"epoch {ep} slow update: {verdict.action.value} "
                      f"(val {result.candidate.gate_score:.3f} vs {result.current.gate_score:.3f})")
    if not verdict.accepted:
        return current
    origin = f"slow_update_epoch_{ep:02d}"
    trainer.set_current(candidate, result.candidate.gate_score, origin, trainer.rundir.root / "skills" / f"{origin}.md")
    if trainer.state.current_score > trainer.state.best_score:
        trainer.set_best(candidate, trainer.state.current_score, trainer.state.last_completed_step, origin)
    return candidate

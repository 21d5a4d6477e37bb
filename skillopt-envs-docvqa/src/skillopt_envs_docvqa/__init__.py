"""DocVQA for SkillOpt: reserved distribution, not implemented yet.

It deliberately registers no env (no `skillopt.envs` entry point), so `skillopt envs`
does not list a benchmark that cannot run. See the repository issues for its plan.
"""

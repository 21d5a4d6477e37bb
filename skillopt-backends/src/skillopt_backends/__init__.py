"""SkillOpt model backends, one module per provider, each registered through the
``skillopt.backends`` entry-point group: ``local`` (llama.cpp, the embedded default),
``openai``, ``openai-compatible``, ``azure-openai`` and ``anthropic``.

The call pipeline (cache, retries, limits, budgets, schema re-asks) lives in
``skillopt.calls`` and wraps every backend; these modules only speak each provider's
protocol and classify its failures.
"""

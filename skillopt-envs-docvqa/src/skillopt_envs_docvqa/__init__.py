"""SkillOpt env plugin: DocVQA-style extractive questions about document page images.

Registered as ``docvqa`` in the ``skillopt.envs`` entry-point group; the entry point names
``skillopt_envs_docvqa.env``. This package module stays empty so that importing it costs
nothing (Pillow is needed only to regenerate the bundled pages).
"""

__version__ = "0.1.0"

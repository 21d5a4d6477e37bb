"""The generator of the bundled sample (``python -m skillopt_envs_alfworld.generator``)."""

from skillopt_envs_alfworld.generator.core import default_out_dir, make_game, sample_rows, split_games, write

__all__ = ["default_out_dir", "make_game", "sample_rows", "split_games", "write"]

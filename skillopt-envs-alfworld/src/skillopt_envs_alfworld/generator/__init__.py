"""The generator of the bundled sample (``python -m skillopt_envs_alfworld.generator [OUT_DIR]``)."""

from skillopt_envs_alfworld.generator.core import default_out_dir, generate_sample, make_game, sample_rows, split_games

__all__ = ["default_out_dir", "generate_sample", "make_game", "sample_rows", "split_games"]

"""The stages of a training step, one module each, named as in the run directory:
``rollout → reflect → merge → select → apply → gate``, plus ``slow_update`` and
``meta_skill`` at epoch boundaries and ``final_eval`` after training."""

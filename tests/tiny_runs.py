"""The smallest training runs the tests make: a few thousand decisions, tiny networks."""

#: TrainConfig settings of a run that takes seconds (two evaluations of 8 games)
TINY = dict(
    timesteps=1024,
    n_envs=4,
    n_steps=128,
    batch_size=128,
    n_epochs=1,
    eval_every=512,
    eval_games=8,
    final_eval_games=8,
    net_arch=(16,),
)


def interrupted_at_the_second_call(function):
    """``function``, but its second call is a Ctrl-C."""
    calls = []

    def interrupt_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return function(*args, **kwargs)

    return interrupt_second

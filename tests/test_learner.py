"""cardzoo.training.learner: the update's arithmetic."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cardzoo.training.learner import ILLEGAL_LOGIT, _entropy  # noqa: E402


@pytest.mark.parametrize("actions", [16, 293])
def test_the_entropy_over_the_legal_actions_is_the_entropy_over_all_bit_for_bit(actions):
    """Decision (learner._entropy): summed over the legal actions alone, the entropy and its
    gradient are those of the sum over every action, to the bit."""
    generator = torch.Generator().manual_seed(actions)
    raw = torch.randn(512, actions, generator=generator) * 4
    legal = torch.rand(512, actions, generator=generator) < 0.2
    legal[:, 3] = True
    results = []
    for entropy in (_entropy, lambda lp, _: -(lp.exp() * lp).sum(dim=1).mean()):
        logits = raw.clone().requires_grad_(True)
        log_probabilities = torch.log_softmax(logits.masked_fill(~legal, ILLEGAL_LOGIT), dim=1)
        value = entropy(log_probabilities, legal)
        value.backward()
        results.append((value.detach(), logits.grad))
    (ours, our_gradient), (full, full_gradient) = results
    assert torch.isfinite(ours) and ours > 0
    assert torch.equal(ours, full)
    assert torch.equal(our_gradient, full_gradient)
    assert our_gradient.abs().sum() > 0

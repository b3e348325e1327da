"""The judge (``koryo-pbm serve``): runs games by mail and shared folder unattended.

``incoming`` reads a mail (who sent it, is it automatic, which envelopes it holds); ``messages``
composes every mail the judge sends (pure functions of the game's public data and the events);
``outbox`` queues and sends them exactly once, with retries; ``service`` ties them together.
"""

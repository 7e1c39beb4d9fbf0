"""A Hearts bot that plays a random legal card: the smallest complete bot.

Run:  python bot.py --port 50051
"""

import random

from referee.botkit import Bot, serve


class RandomBot(Bot):
    name = "random-py"
    version = "1.0.0"
    author = "Hearts referee authors"

    def pass_cards(self, request):
        # Any `count` distinct cards of the hand are a valid pass.
        return random.sample(list(request.hand), request.count)

    def play_card(self, request):
        # The referee sends the legal moves: any of them is a valid play.
        return random.choice(request.legal_moves)


if __name__ == "__main__":
    serve(RandomBot())

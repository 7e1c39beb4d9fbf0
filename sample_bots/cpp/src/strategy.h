// The bot's strategy: the three decisions of the Hearts protocol.
//
// This is the file to change to write your own bot (together with
// strategy.cpp). The functions are pure: they see only the request, which
// carries everything the bot may know, so they are safe to call from several
// threads at once for several games and seats.
#pragma once

#include "hearts/v1/hearts.pb.h"

#include <string>
#include <vector>

namespace strategy {

// Returns exactly req.count() distinct cards from req.hand().
std::vector<hearts::v1::Card> ChoosePass(const hearts::v1::PassCardsRequest& req);

// Returns one card from req.legal_moves() (which is never empty).
hearts::v1::Card ChoosePlay(const hearts::v1::PlayCardRequest& req);

// Returns MOON_SCORING_ADD_TO_OTHERS or MOON_SCORING_SUBTRACT_FROM_SELF.
hearts::v1::MoonScoring ChooseMoonScoring(const hearts::v1::ChooseMoonScoringRequest& req);

// Optional: a line about the play of `card`, sent with it as the answer's
// note. `referee replay` and the web replay show it beside the card, for this
// seat only (at most 200 characters are kept; "" sends none). The answers to
// PassCards and ChooseMoonScoring have a note too (set_note).
std::string PlayNote(const hearts::v1::PlayCardRequest& req, const hearts::v1::Card& card);

}  // namespace strategy

// ============================================================================
//  STRATEGY: put your own strategy here.
//
//  A simple, readable heuristic player:
//    * Pass: Q♠ (unless guarded by 3+ other spades), A♠ and K♠ (when Q♠ is
//      not held), then the highest hearts, then the highest other cards.
//    * Play: always one of legal_moves. Follow suit by ducking under the
//      winning card; when void, dump Q♠, then A♠/K♠ while Q♠ is out, then
//      the highest heart, then the highest card; lead low, avoiding high
//      spades while Q♠ is out.
//    * Moon: add 26 to the others unless that ends the game with us losing.
// ============================================================================
#include "strategy.h"

#include <algorithm>
#include <set>
#include <utility>

using hearts::v1::Card;
using hearts::v1::ChooseMoonScoringRequest;
using hearts::v1::MoonScoring;
using hearts::v1::PassCardsRequest;
using hearts::v1::PlayCardRequest;

namespace strategy {
namespace {

using hearts::v1::SUIT_HEARTS;
using hearts::v1::SUIT_SPADES;
using hearts::v1::RANK_JACK;
using hearts::v1::RANK_QUEEN;
using hearts::v1::RANK_KING;
using hearts::v1::RANK_ACE;

// The default target score (R9). The moon decision does not carry the rules;
// a bot that wants the real value can keep it from StartGame by game_id.
constexpr int kDefaultTargetScore = 100;

bool Is(const Card& c, int suit, int rank) { return c.suit() == suit && c.rank() == rank; }
bool IsQueenOfSpades(const Card& c) { return Is(c, SUIT_SPADES, RANK_QUEEN); }
bool IsHighSpade(const Card& c) { return c.suit() == SUIT_SPADES && c.rank() > RANK_JACK; }
int Key(const Card& c) { return c.suit() * 100 + c.rank(); }

// Higher rank first; ties (different suits) broken by suit for determinism.
bool HigherFirst(const Card& a, const Card& b) {
  return a.rank() != b.rank() ? a.rank() > b.rank() : a.suit() > b.suit();
}

template <typename Cards, typename Pred>
std::vector<Card> Filter(const Cards& cards, Pred pred) {
  std::vector<Card> out;
  for (const Card& c : cards)
    if (pred(c)) out.push_back(c);
  return out;
}

const Card& Highest(const std::vector<Card>& cards) {
  return *std::min_element(cards.begin(), cards.end(), HigherFirst);
}
const Card& Lowest(const std::vector<Card>& cards) {
  return *std::max_element(cards.begin(), cards.end(), HigherFirst);
}

// True if Q♠ has been played in this hand (completed tricks or this trick).
bool QueenOfSpadesPlayed(const PlayCardRequest& req) {
  for (const auto& trick : req.tricks())
    for (const auto& play : trick.plays())
      if (IsQueenOfSpades(play.card())) return true;
  for (const auto& play : req.current_trick().plays())
    if (IsQueenOfSpades(play.card())) return true;
  return false;
}

// Players at the table (V6): the request carries the rules in force.
int NumPlayers(const PlayCardRequest& req) {
  const int n = req.rules().num_players();
  return n > 0 ? n : 4;
}

}  // namespace

// ---------------------------------------------------------------------------
std::vector<Card> ChoosePass(const PassCardsRequest& req) {
  std::vector<Card> hand(req.hand().begin(), req.hand().end());
  std::sort(hand.begin(), hand.end(), HigherFirst);
  const size_t count = std::min<size_t>(std::max(req.count(), 0), hand.size());

  const bool has_queen = std::any_of(hand.begin(), hand.end(), IsQueenOfSpades);
  const auto spades = Filter(hand, [](const Card& c) { return c.suit() == SUIT_SPADES; });
  const bool queen_guarded = has_queen && spades.size() - 1 >= 3;

  std::vector<Card> wanted;  // in order of preference
  if (has_queen && !queen_guarded)
    wanted.push_back(*std::find_if(hand.begin(), hand.end(), IsQueenOfSpades));
  if (!has_queen)
    for (const Card& c : hand)
      if (Is(c, SUIT_SPADES, RANK_ACE) || Is(c, SUIT_SPADES, RANK_KING)) wanted.push_back(c);
  for (const Card& c : hand)
    if (c.suit() == SUIT_HEARTS) wanted.push_back(c);
  for (const Card& c : hand) wanted.push_back(c);  // highest remaining

  std::vector<Card> pass;
  std::set<int> chosen;
  for (const Card& c : wanted) {
    if (pass.size() == count) break;
    if (queen_guarded && IsQueenOfSpades(c)) continue;  // keep a guarded Q♠
    if (chosen.insert(Key(c)).second) pass.push_back(c);
  }
  // Only reachable if the hand is tiny and holds the kept Q♠: pass it after all.
  for (const Card& c : hand) {
    if (pass.size() == count) break;
    if (chosen.insert(Key(c)).second) pass.push_back(c);
  }
  return pass;
}

// ---------------------------------------------------------------------------
Card ChoosePlay(const PlayCardRequest& req) {
  const std::vector<Card> legal(req.legal_moves().begin(), req.legal_moves().end());
  if (legal.size() == 1) return legal[0];
  const auto& plays = req.current_trick().plays();
  const bool queen_out = !QueenOfSpadesPlayed(req);

  // Leading: the lowest card (so, of the suit where we hold the lowest card),
  // avoiding spades above J while Q♠ has not been played.
  if (plays.empty()) {
    auto safe = Filter(legal, [&](const Card& c) { return !(queen_out && IsHighSpade(c)); });
    return Lowest(safe.empty() ? legal : safe);
  }

  const int led = plays[0].card().suit();
  const auto following = Filter(legal, [&](const Card& c) { return c.suit() == led; });

  if (following.size() == legal.size()) {
    // Following suit. The trick's winning card so far:
    int winning = 0;
    for (const auto& p : plays)
      if (p.card().suit() == led) winning = std::max<int>(winning, p.card().rank());
    auto ducks = Filter(legal, [&](const Card& c) { return c.rank() < winning; });
    if (!ducks.empty()) return Highest(ducks);  // highest card that still loses
    const bool last_to_play = static_cast<int>(plays.size()) == NumPlayers(req) - 1;
    if (last_to_play) {
      // We win the trick anyway: get rid of our highest card, but not Q♠.
      auto not_queen = Filter(legal, [](const Card& c) { return !IsQueenOfSpades(c); });
      return Highest(not_queen.empty() ? legal : not_queen);
    }
    return Lowest(legal);
  }

  // Void in the led suit: discard the most dangerous card.
  for (const Card& c : legal)
    if (IsQueenOfSpades(c)) return c;
  if (queen_out) {
    auto high_spades = Filter(legal, [](const Card& c) {
      return Is(c, SUIT_SPADES, RANK_ACE) || Is(c, SUIT_SPADES, RANK_KING);
    });
    if (!high_spades.empty()) return Highest(high_spades);
  }
  auto hearts = Filter(legal, [](const Card& c) { return c.suit() == SUIT_HEARTS; });
  if (!hearts.empty()) return Highest(hearts);
  return Highest(legal);
}

// ---------------------------------------------------------------------------
MoonScoring ChooseMoonScoring(const ChooseMoonScoringRequest& req) {
  // Both choices leave us 26 ahead of everybody; they differ only in whether
  // adding 26 to the others ends the game (R9). Subtract when adding would end
  // the game without us alone in the lead.
  const int me = req.seat();
  if (me < 0 || me >= req.scores_size()) return hearts::v1::MOON_SCORING_ADD_TO_OTHERS;
  bool ends = false, we_win = true;
  for (int s = 0; s < req.scores_size(); ++s) {
    if (s == me) continue;
    const int after = req.scores(s) + 26;
    if (after >= kDefaultTargetScore) ends = true;
    if (after <= req.scores(me)) we_win = false;
  }
  if (ends && !we_win) return hearts::v1::MOON_SCORING_SUBTRACT_FROM_SELF;
  return hearts::v1::MOON_SCORING_ADD_TO_OTHERS;
}

std::string PlayNote(const PlayCardRequest& req, const Card& card) {
  static const std::string kRanks = "??23456789TJQKA";
  static const std::string kSuits = "?CDHS";
  auto at = [](const std::string& table, int i) {
    return i >= 0 && i < static_cast<int>(table.size()) ? table[i] : '?';
  };
  std::string name{at(kRanks, card.rank()), at(kSuits, card.suit())};
  return name + " of " + std::to_string(req.legal_moves_size()) + " legal (trick " +
         std::to_string(req.trick_number()) + ")";
}

}  // namespace strategy

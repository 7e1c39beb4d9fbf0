// ============================================================================
//  THE STRATEGY OF THE BOT: put your own strategy here.
// ============================================================================
//
// Three pure functions decide everything:
//
//   choosePass(req)        -> the cards to pass     (exactly req.count cards from req.hand)
//   choosePlay(req)        -> the card to play      (always one of req.legal_moves)
//   chooseMoonScoring(req) -> how a moon of ours is scored
//
// and playNote(req, card), optional, explains a play in the replays.
//
// Every request carries all the bot may know (hand, tricks so far, scores,
// legal moves...), so these functions keep no state: the server may call them
// for several games and seats at once. The request and card types are
// generated at build time from proto/hearts/v1/hearts.proto (field names
// as in the proto, e.g. req.legal_moves).
//
// The referee checks every answer: a card outside legal_moves or a bad pass
// is a fault. Choose among legal_moves and you cannot play an illegal card.

import type { Card__Output as Card } from './generated/hearts/v1/Card';
import type { ChooseMoonScoringRequest__Output as ChooseMoonScoringRequest } from './generated/hearts/v1/ChooseMoonScoringRequest';
import { MoonScoring } from './generated/hearts/v1/MoonScoring';
import type { MoonScoring__Output } from './generated/hearts/v1/MoonScoring';
import type { PassCardsRequest__Output as PassCardsRequest } from './generated/hearts/v1/PassCardsRequest';
import type { PlayCardRequest__Output as PlayCardRequest } from './generated/hearts/v1/PlayCardRequest';
import { Rank } from './generated/hearts/v1/Rank';
import { Suit } from './generated/hearts/v1/Suit';

export type { Card };

/** Keep Q♠ (do not pass it) when holding at least this many other spades. */
const QUEEN_GUARDS = 3;

// ---------------------------------------------------------------------------
// Passing (R2)

/**
 * Pass Q♠ (unless guarded by QUEEN_GUARDS other spades), A♠ and K♠ (when Q♠
 * is not held), then the highest hearts, then the highest remaining cards.
 */
export function choosePass(req: PassCardsRequest): Card[] {
  const hand = req.hand;
  const spades = hand.filter((c) => c.suit === Suit.SUIT_SPADES);
  const holdsQueen = hand.some(isQueenOfSpades);
  const keepQueen = holdsQueen && spades.length - 1 >= QUEEN_GUARDS;

  const wanted: Card[] = [];
  if (holdsQueen && !keepQueen) wanted.push(...hand.filter(isQueenOfSpades));
  if (!holdsQueen) {
    wanted.push(...byRankDesc(spades.filter((c) => c.rank >= Rank.RANK_KING)));
  }
  wanted.push(...byRankDesc(hand.filter((c) => c.suit === Suit.SUIT_HEARTS)));
  wanted.push(...byRankDesc(hand));

  // Take the first `count` distinct cards, never Q♠ when we decided to keep it.
  const chosen: Card[] = [];
  for (const card of wanted) {
    if (chosen.length >= req.count) break;
    if (keepQueen && isQueenOfSpades(card)) continue;
    if (!chosen.some((c) => sameCard(c, card))) chosen.push(card);
  }
  // Safety net: fill up from the hand (only reachable with tiny hands).
  for (const card of hand) {
    if (chosen.length >= req.count) break;
    if (!chosen.some((c) => sameCard(c, card))) chosen.push(card);
  }
  return chosen;
}

// ---------------------------------------------------------------------------
// Playing (R3-R6)

/** Choose a card to play; always one of req.legal_moves. */
export function choosePlay(req: PlayCardRequest): Card {
  const legal = req.legal_moves;
  if (legal.length === 1) return legal[0];

  const plays = req.current_trick?.plays ?? [];
  const queenPlayed = req.tricks.some((t) =>
    t.plays.some((p) => p.card !== null && isQueenOfSpades(p.card)),
  ) || plays.some((p) => p.card !== null && isQueenOfSpades(p.card));

  // Leading: the lowest card we have, but no spade above J while Q♠ is out.
  if (plays.length === 0) {
    const safe = legal.filter(
      (c) => queenPlayed || !(c.suit === Suit.SUIT_SPADES && c.rank > Rank.RANK_JACK),
    );
    return lowest(safe.length > 0 ? safe : legal);
  }

  const ledSuit = plays[0].card?.suit;
  const following = legal.filter((c) => c.suit === ledSuit);

  // Following suit: duck under the winning card if we can.
  if (following.length > 0) {
    const winning = Math.max(
      ...plays.filter((p) => p.card?.suit === ledSuit).map((p) => p.card!.rank),
    );
    const ducks = following.filter((c) => c.rank < winning);
    if (ducks.length > 0) return highest(ducks);

    // The request carries the rules in force, with the table size (V6).
    const numPlayers = req.rules?.num_players || 4;
    const lastToPlay = plays.length === numPlayers - 1;
    if (lastToPlay) {
      // We win this trick anyway: get rid of our highest card, but not Q♠.
      const notQueen = following.filter((c) => !isQueenOfSpades(c));
      return highest(notQueen.length > 0 ? notQueen : following);
    }
    return lowest(following);
  }

  // Void in the led suit: dump Q♠, then A♠/K♠ while Q♠ is out, then the
  // highest heart, then the highest card.
  const queen = legal.find(isQueenOfSpades);
  if (queen) return queen;
  if (!queenPlayed) {
    const bigSpades = legal.filter((c) => c.suit === Suit.SUIT_SPADES && c.rank > Rank.RANK_QUEEN);
    if (bigSpades.length > 0) return highest(bigSpades);
  }
  const hearts = legal.filter((c) => c.suit === Suit.SUIT_HEARTS);
  if (hearts.length > 0) return highest(hearts);
  return highest(legal);
}

// ---------------------------------------------------------------------------
// Shooting the moon (V2, shooter chooses)

/**
 * Adding 26 to the others and subtracting 26 from ourselves leave the gaps
 * between us and everybody else the same; only adding can end the game (an
 * opponent may reach the target). So add to the others when we are then
 * strictly lowest (the game may end with our win), else subtract from self.
 */
export function chooseMoonScoring(req: ChooseMoonScoringRequest): MoonScoring__Output {
  const mine = req.scores[req.seat] ?? 0;
  const others = req.scores.filter((_, seat) => seat !== req.seat);
  if (others.length === 0) return MoonScoring.MOON_SCORING_ADD_TO_OTHERS;
  const lowestOther = Math.min(...others) + 26;
  return mine < lowestOther
    ? MoonScoring.MOON_SCORING_ADD_TO_OTHERS
    : MoonScoring.MOON_SCORING_SUBTRACT_FROM_SELF;
}

// ---------------------------------------------------------------------------
// Notes

/**
 * An optional line about a play, sent with it as the answer's `note`:
 * `referee replay` and the web replay show it beside the card, for this seat
 * only (at most 200 characters are kept; '' sends none). The answers to
 * PassCards and ChooseMoonScoring take a `note` too.
 */
export function playNote(req: PlayCardRequest, card: Card): string {
  const name = ('??23456789TJQKA'[card.rank] ?? '?') + ('?CDHS'[card.suit] ?? '?');
  return `${name} of ${req.legal_moves.length} legal (trick ${req.trick_number})`;
}

// ---------------------------------------------------------------------------
// Card helpers

export function isQueenOfSpades(card: Card): boolean {
  return card.suit === Suit.SUIT_SPADES && card.rank === Rank.RANK_QUEEN;
}

export function sameCard(a: Card, b: Card): boolean {
  return a.suit === b.suit && a.rank === b.rank;
}

/** Highest rank first (ties keep their order); returns a new array. */
function byRankDesc(cards: Card[]): Card[] {
  return [...cards].sort((a, b) => b.rank - a.rank);
}

/** The card of highest rank (the first of equals). `cards` must not be empty. */
function highest(cards: Card[]): Card {
  return cards.reduce((best, c) => (c.rank > best.rank ? c : best));
}

/** The card of lowest rank (the first of equals). `cards` must not be empty. */
function lowest(cards: Card[]): Card {
  return cards.reduce((best, c) => (c.rank < best.rank ? c : best));
}

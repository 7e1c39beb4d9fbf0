//! THE STRATEGY. Put your own strategy here.
//!
//! Three pure functions make every decision of the bot:
//!   * `choose_pass`         - which cards to pass (R2),
//!   * `choose_play`         - which card to play (R3-R6),
//!   * `choose_moon_scoring` - how a moon is scored when the shooter chooses (V2).
//!
//! Each gets the whole request, which carries everything the bot may know, so
//! no state is kept. `choose_play` only ever picks a card out of
//! `legal_moves`: the referee computes legality, the bot never has to.
//! `play_note` (optional) explains a play in the replays.

use crate::pb::{
    Card, ChooseMoonScoringRequest, MoonScoring, PassCardsRequest, PlayCardRequest, Rank, Suit,
};

const HEARTS: i32 = Suit::Hearts as i32;
const SPADES: i32 = Suit::Spades as i32;
const JACK: i32 = Rank::Jack as i32;
const QUEEN: i32 = Rank::Queen as i32;
const KING: i32 = Rank::King as i32;
const ACE: i32 = Rank::Ace as i32;

/// Q♠ is worth keeping (rather than passing) with at least this many other spades.
const SPADES_TO_GUARD_QUEEN: usize = 3;
/// The target score when the request does not say (R9 default).
const DEFAULT_TARGET_SCORE: i32 = 100;

fn is(card: &Card, suit: i32, rank: i32) -> bool {
    card.suit == suit && card.rank == rank
}

fn is_queen_of_spades(card: &Card) -> bool {
    is(card, SPADES, QUEEN)
}

fn highest<'a>(cards: impl IntoIterator<Item = &'a Card>) -> Option<&'a Card> {
    // Ties (same rank, several suits): prefer hearts, then spades, diamonds, clubs.
    cards
        .into_iter()
        .max_by_key(|c| (c.rank, c.suit == HEARTS, c.suit))
}

fn lowest<'a>(cards: impl IntoIterator<Item = &'a Card>) -> Option<&'a Card> {
    // Ties: prefer anything but hearts, then clubs, diamonds, spades.
    cards
        .into_iter()
        .min_by_key(|c| (c.rank, c.suit == HEARTS, c.suit))
}

// ---------------------------------------------------------------------------
// Passing

/// Chooses exactly `count` distinct cards of `hand` to pass.
///
/// Order of preference: Q♠ (unless guarded by enough other spades), A♠ and K♠
/// (when Q♠ is not held), the highest hearts, then the highest other cards.
pub fn choose_pass(req: &PassCardsRequest) -> Vec<Card> {
    let hand = &req.hand;
    let count = usize::try_from(req.count).unwrap_or(0).min(hand.len());

    let holds_queen = hand.iter().any(is_queen_of_spades);
    let other_spades = hand
        .iter()
        .filter(|c| c.suit == SPADES && c.rank != QUEEN)
        .count();
    let keep_queen = holds_queen && other_spades >= SPADES_TO_GUARD_QUEEN;

    // Every card of the hand, best card to pass first.
    let priority = |c: &Card| -> (u8, i32, i32) {
        let class = if is_queen_of_spades(c) {
            if keep_queen { 4 } else { 0 }
        } else if !holds_queen && c.suit == SPADES && c.rank >= KING {
            1
        } else if c.suit == HEARTS {
            2
        } else {
            3
        };
        // Within a class: higher rank first (then an arbitrary but fixed suit order).
        (class, -c.rank, -c.suit)
    };
    let mut ordered: Vec<&Card> = hand.iter().collect();
    ordered.sort_by_key(|c| priority(c));

    let mut pass: Vec<Card> = Vec::with_capacity(count);
    for card in ordered {
        if pass.len() == count {
            break;
        }
        if !pass.contains(card) {
            pass.push(*card);
        }
    }
    pass
}

// ---------------------------------------------------------------------------
// Playing

/// Chooses the card to play: always one of `legal_moves` (None only if the
/// request has no legal moves at all).
pub fn choose_play(req: &PlayCardRequest) -> Option<Card> {
    let legal = &req.legal_moves;
    if legal.len() <= 1 {
        return legal.first().copied();
    }
    let plays = req
        .current_trick
        .as_ref()
        .map(|t| t.plays.as_slice())
        .unwrap_or(&[]);
    let card = match plays.first().and_then(|p| p.card.as_ref()) {
        None => lead(req),
        Some(led) if legal.iter().any(|c| c.suit == led.suit) => follow(req, led.suit),
        Some(_) => discard(req),
    };
    // Belt and braces: whatever happened above, answer a legal card.
    card.filter(|c| legal.contains(c))
        .or_else(|| lowest(legal).copied())
}

/// An optional line about a play, sent with it as the answer's `note`:
/// `referee replay` and the web replay show it beside the card, for this seat
/// only (at most 200 characters are kept; an empty string sends none). The
/// answers to PassCards and ChooseMoonScoring have a `note` too.
pub fn play_note(req: &PlayCardRequest, card: &Card) -> String {
    let ranks = b"??23456789TJQKA";
    let suits = b"?CDHS";
    let name = |i: i32, table: &[u8]| *table.get(i as usize).unwrap_or(&b'?') as char;
    format!(
        "{}{} of {} legal (trick {})",
        name(card.rank, ranks),
        name(card.suit, suits),
        req.legal_moves.len(),
        req.trick_number
    )
}

/// Has Q♠ been played in this hand (completed tricks or the current one)?
fn queen_played(req: &PlayCardRequest) -> bool {
    req.tricks
        .iter()
        .chain(req.current_trick.iter())
        .flat_map(|t| t.plays.iter())
        .filter_map(|p| p.card.as_ref())
        .any(is_queen_of_spades)
}

/// Leading: the lowest card, but no spade above J while Q♠ is still out.
fn lead(req: &PlayCardRequest) -> Option<Card> {
    let legal = &req.legal_moves;
    let queen_out = !queen_played(req);
    let safe: Vec<&Card> = legal
        .iter()
        .filter(|c| !(queen_out && c.suit == SPADES && c.rank > JACK))
        .collect();
    let pool: Vec<&Card> = if safe.is_empty() {
        legal.iter().collect()
    } else {
        safe
    };
    lowest(pool).copied()
}

/// Following suit: duck under the winning card if possible; otherwise take
/// the trick with the highest card when last to play, else play the lowest.
fn follow(req: &PlayCardRequest, led_suit: i32) -> Option<Card> {
    let legal: Vec<&Card> = req
        .legal_moves
        .iter()
        .filter(|c| c.suit == led_suit)
        .collect();
    let plays = req
        .current_trick
        .as_ref()
        .map(|t| t.plays.as_slice())
        .unwrap_or(&[]);
    let winning_rank = plays
        .iter()
        .filter_map(|p| p.card.as_ref())
        .filter(|c| c.suit == led_suit)
        .map(|c| c.rank)
        .max()
        .unwrap_or(0);

    if let Some(duck) = highest(legal.iter().copied().filter(|c| c.rank < winning_rank)) {
        return Some(*duck);
    }
    // The request carries the rules in force, with the table size (V6).
    let num_players = req.rules.as_ref().map_or(0, |r| r.num_players.max(0) as usize);
    let num_players = if num_players == 0 { 4 } else { num_players };
    let last_to_play = plays.len() + 1 >= num_players;
    if last_to_play {
        // We win the trick anyway: get rid of the highest card, but not Q♠
        // into a spade trick if a different spade wins just as well.
        let non_queen = highest(legal.iter().copied().filter(|c| !is_queen_of_spades(c)));
        non_queen
            .or_else(|| highest(legal.iter().copied()))
            .copied()
    } else {
        lowest(legal.iter().copied()).copied()
    }
}

/// Void in the led suit: dump Q♠, else A♠/K♠ while Q♠ is out, else the
/// highest heart, else the highest card.
fn discard(req: &PlayCardRequest) -> Option<Card> {
    let legal = &req.legal_moves;
    if let Some(q) = legal.iter().find(|c| is_queen_of_spades(c)) {
        return Some(*q);
    }
    if !queen_played(req) {
        let big_spade = legal
            .iter()
            .find(|c| is(c, SPADES, ACE))
            .or_else(|| legal.iter().find(|c| is(c, SPADES, KING)));
        if let Some(s) = big_spade {
            return Some(*s);
        }
    }
    highest(legal.iter().filter(|c| c.suit == HEARTS))
        .or_else(|| highest(legal.iter()))
        .copied()
}

// ---------------------------------------------------------------------------
// Moon scoring

/// The bot shot the moon and may choose how it is scored (V2).
///
/// Adding 26 to the others is the default and usually as good. Subtracting is
/// better when adding would push someone to the target (ending the game) while
/// this seat would not then be alone in the lead. The request does not carry
/// the target score, so the default (100) is assumed; a stateful bot could
/// remember `rules.target_score` from StartGame, keyed by (game_id, seat).
pub fn choose_moon_scoring(req: &ChooseMoonScoringRequest) -> MoonScoring {
    let me = usize::try_from(req.seat).ok();
    let my_score = me.and_then(|s| req.scores.get(s)).copied().unwrap_or(0);
    let others = req
        .scores
        .iter()
        .enumerate()
        .filter(|(s, _)| Some(*s) != me)
        .map(|(_, &score)| score);

    let mut ends_game = false;
    let mut i_win_if_ended = true;
    for score in others {
        let after_add = score + 26;
        if after_add >= DEFAULT_TARGET_SCORE {
            ends_game = true;
        }
        if after_add <= my_score {
            i_win_if_ended = false;
        }
    }
    if ends_game && !i_win_if_ended {
        MoonScoring::SubtractFromSelf
    } else {
        MoonScoring::AddToOthers
    }
}

package org.hearts.bot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.hearts.v1.Card;
import org.hearts.v1.ChooseMoonScoringRequest;
import org.hearts.v1.MoonScoring;
import org.hearts.v1.PassCardsRequest;
import org.hearts.v1.Play;
import org.hearts.v1.PlayCardRequest;
import org.hearts.v1.Rank;
import org.hearts.v1.Suit;
import org.hearts.v1.Trick;

/*
 * ============================================================================
 *  THE STRATEGY: put your own bot's brain here.
 * ============================================================================
 *
 * Three pure functions, one per decision RPC. Each gets the whole request
 * (everything the bot may know at that moment) and returns the answer; there
 * is no state, so the bot can play many games and seats at once safely.
 *
 * The only hard rule: play() must return a card from req.getLegalMovesList()
 * and pass() must return exactly req.getCount() distinct cards of the hand.
 * Legality is never computed here: the referee sends the legal moves.
 * playNote() (optional) explains a play in the replays.
 */
final class Strategy {
  /** Keep Q♠ when holding at least this many other spades to cover it. */
  private static final int QUEEN_GUARDS = 3;
  /** Target score assumed by moonScoring (the request does not carry the rules; R9 default). */
  private static final int ASSUMED_TARGET = 100;

  private static final Card QUEEN_OF_SPADES = card(Suit.SUIT_SPADES, Rank.RANK_QUEEN);
  private static final Card KING_OF_SPADES = card(Suit.SUIT_SPADES, Rank.RANK_KING);
  private static final Card ACE_OF_SPADES = card(Suit.SUIT_SPADES, Rank.RANK_ACE);

  private static final Comparator<Card> BY_RANK = Comparator.comparingInt(Strategy::rank);
  private static final Comparator<Card> HIGHEST_FIRST = BY_RANK.reversed();

  private Strategy() {}

  // --------------------------------------------------------------------------
  // Passing (R2)
  // --------------------------------------------------------------------------

  /**
   * Pass Q♠ unless it is well guarded, then A♠ and K♠ if Q♠ is not held, then the highest hearts,
   * then the highest other cards.
   */
  static List<Card> pass(PassCardsRequest req) {
    List<Card> hand = req.getHandList();
    Set<Card> chosen = new LinkedHashSet<>();

    boolean holdsQueen = hand.contains(QUEEN_OF_SPADES);
    long otherSpades = hand.stream()
        .filter(c -> c.getSuit() == Suit.SUIT_SPADES && !c.equals(QUEEN_OF_SPADES))
        .count();
    boolean keepQueen = holdsQueen && otherSpades >= QUEEN_GUARDS;

    if (holdsQueen && !keepQueen) {
      chosen.add(QUEEN_OF_SPADES);
    }
    if (!holdsQueen) {
      if (hand.contains(ACE_OF_SPADES)) {
        chosen.add(ACE_OF_SPADES);
      }
      if (hand.contains(KING_OF_SPADES)) {
        chosen.add(KING_OF_SPADES);
      }
    }
    hand.stream()
        .filter(c -> c.getSuit() == Suit.SUIT_HEARTS)
        .sorted(HIGHEST_FIRST)
        .forEach(chosen::add);
    hand.stream()
        .filter(c -> !(keepQueen && c.equals(QUEEN_OF_SPADES)))
        .sorted(HIGHEST_FIRST)
        .forEach(chosen::add);
    if (keepQueen) {
      chosen.add(QUEEN_OF_SPADES); // last resort only, for a hand of very few cards
    }

    List<Card> ordered = new ArrayList<>(chosen);
    return ordered.subList(0, Math.min(req.getCount(), ordered.size()));
  }

  // --------------------------------------------------------------------------
  // Playing (R3-R6)
  // --------------------------------------------------------------------------

  /** Choose one card of req.getLegalMovesList(). */
  static Card play(PlayCardRequest req) {
    List<Card> legal = req.getLegalMovesList();
    if (legal.size() == 1) {
      return legal.get(0);
    }
    Trick trick = req.getCurrentTrick();
    if (trick.getPlaysCount() == 0) {
      return lead(req, legal);
    }
    Suit led = trick.getPlays(0).getCard().getSuit();
    List<Card> following = legal.stream().filter(c -> c.getSuit() == led).toList();
    if (!following.isEmpty()) {
      return follow(req, trick, led, following);
    }
    return discard(req, legal);
  }

  /** Leading: the lowest card, but no high spade (Q♠ or above) while Q♠ is still out. */
  private static Card lead(PlayCardRequest req, List<Card> legal) {
    List<Card> candidates = legal;
    if (!queenPlayed(req)) {
      List<Card> safe = legal.stream()
          .filter(c -> !(c.getSuit() == Suit.SUIT_SPADES && rank(c) >= Rank.RANK_QUEEN_VALUE))
          .toList();
      if (!safe.isEmpty()) {
        candidates = safe;
      }
    }
    // Lowest rank first; on a tie prefer not to lead a heart.
    return candidates.stream()
        .min(BY_RANK.thenComparing(c -> c.getSuit() == Suit.SUIT_HEARTS))
        .orElseThrow();
  }

  /** Following suit: duck under the winning card if possible. */
  private static Card follow(PlayCardRequest req, Trick trick, Suit led, List<Card> following) {
    int winning = trick.getPlaysList().stream()
        .map(Play::getCard)
        .filter(c -> c.getSuit() == led)
        .mapToInt(Strategy::rank)
        .max()
        .orElse(0);
    // Duck: the highest card that still loses to the current winner.
    var duck = following.stream().filter(c -> rank(c) < winning).max(BY_RANK);
    if (duck.isPresent()) {
      return duck.get();
    }
    boolean last = trick.getPlaysCount() == numPlayers(req) - 1;
    if (last) {
      // We take the trick anyway: get rid of our highest card of the suit.
      return following.stream().max(BY_RANK).orElseThrow();
    }
    // Someone may still go over us: play low, but not Q♠ if there is another choice.
    List<Card> low = following.stream().filter(c -> !c.equals(QUEEN_OF_SPADES)).toList();
    return (low.isEmpty() ? following : low).stream().min(BY_RANK).orElseThrow();
  }

  /** Void in the led suit: Q♠, then A♠/K♠ while Q♠ is out, then the highest heart, then the highest card. */
  private static Card discard(PlayCardRequest req, List<Card> legal) {
    if (legal.contains(QUEEN_OF_SPADES)) {
      return QUEEN_OF_SPADES;
    }
    if (!queenPlayed(req)) {
      for (Card c : List.of(ACE_OF_SPADES, KING_OF_SPADES)) {
        if (legal.contains(c)) {
          return c;
        }
      }
    }
    var heart = legal.stream().filter(c -> c.getSuit() == Suit.SUIT_HEARTS).max(BY_RANK);
    if (heart.isPresent()) {
      return heart.get();
    }
    return legal.stream().max(BY_RANK).orElseThrow();
  }

  // --------------------------------------------------------------------------
  // Moon scoring (V2, shooter chooses)
  // --------------------------------------------------------------------------

  /**
   * We shot the moon. Both choices move us 26 points relative to everybody else; adding 26 to the
   * others is the default, unless it would end the game (R9) with us not alone in the lead.
   */
  static MoonScoring moonScoring(ChooseMoonScoringRequest req) {
    List<Integer> scores = req.getScoresList();
    int seat = req.getSeat();
    if (seat < 0 || seat >= scores.size()) {
      return MoonScoring.MOON_SCORING_ADD_TO_OTHERS;
    }
    int mine = scores.get(seat);
    boolean endsGame = false;
    boolean aloneInLead = true;
    for (int s = 0; s < scores.size(); s++) {
      if (s == seat) {
        continue;
      }
      int theirs = scores.get(s) + 26;
      endsGame |= theirs >= ASSUMED_TARGET;
      aloneInLead &= mine < theirs;
    }
    if (endsGame && !aloneInLead) {
      return MoonScoring.MOON_SCORING_SUBTRACT_FROM_SELF;
    }
    return MoonScoring.MOON_SCORING_ADD_TO_OTHERS;
  }

  // --------------------------------------------------------------------------
  // Notes
  // --------------------------------------------------------------------------

  /**
   * An optional line about a play, sent with it as the answer's note: {@code referee replay} and
   * the web replay show it beside the card, for this seat only (at most 200 characters are kept;
   * "" sends none). The answers to PassCards and ChooseMoonScoring have a note too (setNote).
   */
  static String playNote(PlayCardRequest req, Card card) {
    String ranks = "??23456789TJQKA";
    String suits = "?CDHS";
    int r = rank(card);
    int s = card.getSuitValue();
    String name =
        (r >= 0 && r < ranks.length() ? ranks.charAt(r) : '?')
            + ""
            + (s >= 0 && s < suits.length() ? suits.charAt(s) : '?');
    return name + " of " + req.getLegalMovesCount() + " legal (trick " + req.getTrickNumber() + ")";
  }

  // --------------------------------------------------------------------------
  // Helpers
  // --------------------------------------------------------------------------

  private static int rank(Card c) {
    return c.getRankValue();
  }

  private static Card card(Suit suit, Rank rank) {
    return Card.newBuilder().setSuit(suit).setRank(rank).build();
  }

  /** Whether Q♠ has been played to a trick of this hand (completed or current). */
  private static boolean queenPlayed(PlayCardRequest req) {
    for (Trick t : req.getTricksList()) {
      for (Play p : t.getPlaysList()) {
        if (p.getCard().equals(QUEEN_OF_SPADES)) {
          return true;
        }
      }
    }
    for (Play p : req.getCurrentTrick().getPlaysList()) {
      if (p.getCard().equals(QUEEN_OF_SPADES)) {
        return true;
      }
    }
    return false;
  }

  /** Players at the table (V6): the request carries the rules in force. */
  private static int numPlayers(PlayCardRequest req) {
    int n = req.getRules().getNumPlayers();
    return n > 0 ? n : 4;
  }
}

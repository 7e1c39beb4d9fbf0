package main

// ============================================================================
// STRATEGY — put your own strategy here.
//
// Three pure functions decide everything the bot does:
//   ChoosePass  — which cards to pass before a hand (R2)
//   ChoosePlay  — which card to play to the current trick (R3-R6)
//   ChooseMoon  — how to score a moon shot under V2 "shooter chooses"
//
// Each request carries everything the bot may know (hand, tricks so far,
// legal moves, scores), so these functions need no state and can run
// concurrently for many games and seats. ChoosePlay must return one of
// req.LegalMoves; main.go falls back to the first legal move if it doesn't.
// PlayNote (optional) explains a play in the replays.
// ============================================================================

import (
	"fmt"
	"sort"

	pb "heartsbot/gen/hearts/v1"
)

// PlayNote is an optional line about a play, sent with it as the answer's
// note: `referee replay` and the web replay show it beside the card, for
// this seat only (at most 200 characters are kept; "" sends none). The
// answers to PassCards and ChooseMoonScoring take a Note too.
func PlayNote(req *pb.PlayCardRequest, card *pb.Card) string {
	return fmt.Sprintf("%s of %d legal (trick %d)",
		cardName(card), len(req.GetLegalMoves()), req.GetTrickNumber())
}

// cardName is a card as the referee writes it: "QS", "TH", "2C".
func cardName(c *pb.Card) string {
	return string("??23456789TJQKA"[c.GetRank()]) + string("?CDHS"[c.GetSuit()])
}

// ChoosePass picks exactly req.Count distinct cards from req.Hand:
// Q♠ (unless it is guarded by at least 3 other spades), A♠ and K♠ (when Q♠
// is not held), then the highest hearts, then the highest remaining cards.
func ChoosePass(req *pb.PassCardsRequest) []*pb.Card {
	hand := req.GetHand()
	count := int(req.GetCount())
	if count > len(hand) {
		count = len(hand)
	}
	var picked []*pb.Card
	take := func(c *pb.Card) {
		if len(picked) < count && !contains(picked, c) {
			picked = append(picked, c)
		}
	}

	holdsQueen := contains(hand, queenOfSpades)
	if holdsQueen {
		if len(ofSuit(hand, pb.Suit_SUIT_SPADES)) < 4 { // fewer than 3 guards
			take(queenOfSpades)
		}
	} else {
		for _, c := range hand {
			if isSpade(c) && c.GetRank() >= pb.Rank_RANK_KING {
				take(c)
			}
		}
	}
	for _, c := range highestFirst(ofSuit(hand, pb.Suit_SUIT_HEARTS)) {
		take(c)
	}
	for _, c := range highestFirst(hand) {
		// Keep a guarded Q♠: only pass it if nothing else is left.
		if !isQueenOfSpades(c) {
			take(c)
		}
	}
	for _, c := range hand {
		take(c)
	}
	return picked
}

// ChoosePlay picks a card from req.LegalMoves.
func ChoosePlay(req *pb.PlayCardRequest) *pb.Card {
	legal := req.GetLegalMoves()
	plays := req.GetCurrentTrick().GetPlays()
	queenOut := !queenPlayed(req) && !contains(req.GetHand(), queenOfSpades)

	// Leading: the lowest card, avoiding spades above J while another
	// player may still hold Q♠ (leading them could win it back).
	if len(plays) == 0 {
		candidates := legal
		if queenOut {
			if safe := filter(legal, func(c *pb.Card) bool {
				return !isSpade(c) || c.GetRank() <= pb.Rank_RANK_JACK
			}); len(safe) > 0 {
				candidates = safe
			}
		}
		return lowest(candidates)
	}

	led := plays[0].GetCard().GetSuit()
	following := ofSuit(legal, led)

	// Following suit: duck under the current winner if we can.
	if len(following) > 0 {
		winner := plays[0].GetCard()
		for _, p := range plays[1:] {
			if p.GetCard().GetSuit() == led && p.GetCard().GetRank() > winner.GetRank() {
				winner = p.GetCard()
			}
		}
		under := filter(following, func(c *pb.Card) bool { return c.GetRank() < winner.GetRank() })
		if len(under) > 0 {
			return highestFirst(under)[0]
		}
		if len(plays) == numPlayers(req)-1 {
			// Last to play and we win anyway: shed our highest card (but not Q♠).
			if noQueen := filter(following, func(c *pb.Card) bool { return !isQueenOfSpades(c) }); len(noQueen) > 0 {
				return highestFirst(noQueen)[0]
			}
			return highestFirst(following)[0]
		}
		return lowest(following)
	}

	// Void in the led suit: dump Q♠, then A♠/K♠ while Q♠ is out, then the
	// highest heart, then the highest card.
	if contains(legal, queenOfSpades) {
		return find(legal, queenOfSpades)
	}
	if !queenPlayed(req) {
		if big := filter(legal, func(c *pb.Card) bool {
			return isSpade(c) && c.GetRank() > pb.Rank_RANK_QUEEN
		}); len(big) > 0 {
			return highestFirst(big)[0]
		}
	}
	if hearts := ofSuit(legal, pb.Suit_SUIT_HEARTS); len(hearts) > 0 {
		return highestFirst(hearts)[0]
	}
	return highestFirst(legal)[0]
}

// ChooseMoon: both choices leave the standings in the same order (everybody
// else +26, or us -26); they differ only in whether the others' totals grow
// and may end the game (R9). Add to others when that leaves us strictly
// lowest (ending the game is then fine), otherwise subtract from ourselves.
func ChooseMoon(req *pb.ChooseMoonScoringRequest) pb.MoonScoring {
	scores := req.GetScores()
	seat := int(req.GetSeat())
	if seat < 0 || seat >= len(scores) {
		return pb.MoonScoring_MOON_SCORING_ADD_TO_OTHERS
	}
	for s, total := range scores {
		if s != seat && total+26 <= scores[seat] {
			return pb.MoonScoring_MOON_SCORING_SUBTRACT_FROM_SELF
		}
	}
	return pb.MoonScoring_MOON_SCORING_ADD_TO_OTHERS
}

// ---------------------------------------------------------------------------
// Card helpers

var queenOfSpades = &pb.Card{Suit: pb.Suit_SUIT_SPADES, Rank: pb.Rank_RANK_QUEEN}

func sameCard(a, b *pb.Card) bool {
	return a.GetSuit() == b.GetSuit() && a.GetRank() == b.GetRank()
}

func isSpade(c *pb.Card) bool         { return c.GetSuit() == pb.Suit_SUIT_SPADES }
func isQueenOfSpades(c *pb.Card) bool { return sameCard(c, queenOfSpades) }

func contains(cards []*pb.Card, c *pb.Card) bool { return find(cards, c) != nil }

// find returns the element of cards equal to c, or nil.
func find(cards []*pb.Card, c *pb.Card) *pb.Card {
	for _, x := range cards {
		if sameCard(x, c) {
			return x
		}
	}
	return nil
}

func filter(cards []*pb.Card, keep func(*pb.Card) bool) []*pb.Card {
	var out []*pb.Card
	for _, c := range cards {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

func ofSuit(cards []*pb.Card, s pb.Suit) []*pb.Card {
	return filter(cards, func(c *pb.Card) bool { return c.GetSuit() == s })
}

// highestFirst returns a copy sorted by rank, highest first (ties: spades,
// hearts, diamonds, clubs).
func highestFirst(cards []*pb.Card) []*pb.Card {
	out := append([]*pb.Card(nil), cards...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].GetRank() != out[j].GetRank() {
			return out[i].GetRank() > out[j].GetRank()
		}
		return out[i].GetSuit() > out[j].GetSuit()
	})
	return out
}

// lowest returns the lowest-ranked card, preferring non-hearts on ties.
func lowest(cards []*pb.Card) *pb.Card {
	var best *pb.Card
	for _, c := range cards {
		if best == nil || c.GetRank() < best.GetRank() ||
			(c.GetRank() == best.GetRank() && best.GetSuit() == pb.Suit_SUIT_HEARTS) {
			best = c
		}
	}
	return best
}

// queenPlayed reports whether Q♠ has been played in this hand so far.
func queenPlayed(req *pb.PlayCardRequest) bool {
	tricks := append([]*pb.Trick{req.GetCurrentTrick()}, req.GetTricks()...)
	for _, t := range tricks {
		for _, p := range t.GetPlays() {
			if isQueenOfSpades(p.GetCard()) {
				return true
			}
		}
	}
	return false
}

// numPlayers is the table size (3-7, V6): the request carries the rules in force.
func numPlayers(req *pb.PlayCardRequest) int {
	if n := int(req.GetRules().GetNumPlayers()); n > 0 {
		return n
	}
	return 4
}

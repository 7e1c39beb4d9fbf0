package org.hearts.bot;

import io.grpc.stub.StreamObserver;
import org.hearts.v1.Card;
import org.hearts.v1.ChooseMoonScoringRequest;
import org.hearts.v1.ChooseMoonScoringResponse;
import org.hearts.v1.DealHandRequest;
import org.hearts.v1.DealHandResponse;
import org.hearts.v1.EndGameRequest;
import org.hearts.v1.EndGameResponse;
import org.hearts.v1.EndHandRequest;
import org.hearts.v1.EndHandResponse;
import org.hearts.v1.HandshakeRequest;
import org.hearts.v1.HandshakeResponse;
import org.hearts.v1.HeartsBotGrpc;
import org.hearts.v1.PassCardsRequest;
import org.hearts.v1.PassCardsResponse;
import org.hearts.v1.PlayCardRequest;
import org.hearts.v1.PlayCardResponse;
import org.hearts.v1.StartGameRequest;
import org.hearts.v1.StartGameResponse;

/**
 * The gRPC plumbing of the bot. It keeps no state: every decision is delegated to {@link
 * Strategy}, which sees only the request. Notifications are acknowledged with empty responses.
 */
final class HeartsBotService extends HeartsBotGrpc.HeartsBotImplBase {
  static final String NAME = "java-starter";
  static final String VERSION = "0.1.0";
  static final String AUTHOR = "Hearts referee authors";
  static final int PROTOCOL_VERSION = 1;

  @Override
  public void handshake(HandshakeRequest req, StreamObserver<HandshakeResponse> out) {
    reply(out, HandshakeResponse.newBuilder()
        .setName(NAME)
        .setVersion(VERSION)
        .setAuthor(AUTHOR)
        .setLanguage("Java")
        .setProtocolVersion(PROTOCOL_VERSION)
        .build());
  }

  @Override
  public void passCards(PassCardsRequest req, StreamObserver<PassCardsResponse> out) {
    reply(out, PassCardsResponse.newBuilder().addAllCards(Strategy.pass(req)).build());
  }

  @Override
  public void playCard(PlayCardRequest req, StreamObserver<PlayCardResponse> out) {
    Card card;
    try {
      card = Strategy.play(req);
    } catch (RuntimeException e) {
      // A bug in the strategy should not cost a fault: fall back to the first legal move.
      System.err.println("strategy failed on " + req.getDecisionId() + ": " + e);
      card = req.getLegalMovesCount() > 0 ? req.getLegalMoves(0) : Card.getDefaultInstance();
    }
    String note = Strategy.playNote(req, card);
    reply(out, PlayCardResponse.newBuilder().setCard(card).setNote(note).build());
  }

  @Override
  public void chooseMoonScoring(
      ChooseMoonScoringRequest req, StreamObserver<ChooseMoonScoringResponse> out) {
    reply(out, ChooseMoonScoringResponse.newBuilder().setChoice(Strategy.moonScoring(req)).build());
  }

  @Override
  public void startGame(StartGameRequest req, StreamObserver<StartGameResponse> out) {
    reply(out, StartGameResponse.getDefaultInstance());
  }

  @Override
  public void dealHand(DealHandRequest req, StreamObserver<DealHandResponse> out) {
    reply(out, DealHandResponse.getDefaultInstance());
  }

  @Override
  public void endHand(EndHandRequest req, StreamObserver<EndHandResponse> out) {
    reply(out, EndHandResponse.getDefaultInstance());
  }

  @Override
  public void endGame(EndGameRequest req, StreamObserver<EndGameResponse> out) {
    reply(out, EndGameResponse.getDefaultInstance());
  }

  private static <T> void reply(StreamObserver<T> out, T response) {
    out.onNext(response);
    out.onCompleted();
  }
}

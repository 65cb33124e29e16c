"""The ward overview's connection to the service: status subscription and acknowledgements.

:class:`WardFeed` subscribes (ZeroMQ SUB, lossy) to the service's status publisher for the
``ward`` and ``alarm`` topics and drains it without blocking each time the window's timer
ticks; only the newest status matters, so older ones waiting in the queue are skipped. An
``alarm`` message updates the banner at once, before the next status. Every message goes
through :func:`rt_eeg.pipeline.messages.decode`; a malformed one is counted and logged.

Acknowledgements go to the control socket (REQ/REP, JSON, :func:`rt_eeg.ward.control.request`)
in a worker thread, so a service that does not answer never freezes the window; the reply
comes back through :meth:`poll`. With ``curve`` both sockets are CURVE clients of a service
whose ``[security]`` makes them CURVE servers (a station on another machine).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

import zmq

from rt_eeg.pipeline.messages import MessageError, decode
from rt_eeg.ward.control import request
from rt_eeg.ward.status import decode_status

log = logging.getLogger(__name__)


class WardFeed:
    """Feed a :class:`~rt_eeg.ward.overview.WardOverview` from a running ward service.

    Parameters
    ----------
    status_endpoint : str
        The service's status PUB endpoint.
    control_endpoint : str, optional
        Its control REP endpoint (acknowledgements); without it, acknowledging is refused.
    window : WardOverview, optional
        Receives ``set_status``, ``update_alarm`` and ``ack_done``; attach later with
        :meth:`attach`.
    user : str
        Who acknowledges (``"by"`` of the ack request).
    monotonic : callable
        Clock for the status receive time (the window judges staleness with the same one).
    curve : (str, str), optional
        ``(server public key file, client secret key file)``: subscribe and acknowledge over
        CURVE (:func:`rt_eeg.security.client_curve`).
    """

    def __init__(
        self,
        status_endpoint: str,
        control_endpoint: str | None = None,
        window=None,
        *,
        user: str = "unknown",
        context: zmq.Context | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        ack_timeout_s: float = 5.0,
        curve: tuple[str, str] | None = None,
    ):
        self.status_endpoint = status_endpoint
        self.control_endpoint = control_endpoint
        self.user = user
        self.curve = curve
        self.ack_timeout_s = float(ack_timeout_s)
        self._mono = monotonic
        self._ctx = context or zmq.Context.instance()
        self.sock = self._ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.RCVHWM, 50)
        for topic in (b"ward", b"alarm"):
            self.sock.setsockopt(zmq.SUBSCRIBE, topic)
        if curve is not None:
            from rt_eeg.security import curve_client_options

            curve_client_options(self.sock, *curve)
        self.sock.connect(status_endpoint)
        self._replies: queue.Queue = queue.Queue()
        self.n_status = 0
        self.n_alarm = 0
        self.n_malformed = 0
        self.last_error = ""
        self.window = None
        if window is not None:
            self.attach(window)

    def attach(self, window) -> None:
        """Feed ``window``: its timer calls :meth:`poll`, its Acknowledge buttons :meth:`ack`."""
        self.window = window
        window.add_poller(self.poll)
        window.on_ack = self.ack

    def poll(self, max_messages: int = 500) -> int:
        """Take what is waiting, never blocking; hand the newest status to the window."""
        newest = None
        n = 0
        for _ in range(max_messages):
            try:
                parts = self.sock.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            n += 1
            try:
                if parts and parts[0] == b"alarm":
                    msg = decode(parts)
                    self.n_alarm += 1
                    if self.window is not None:
                        self.window.update_alarm(msg.header["alarm"])
                else:
                    newest = decode_status(parts)
            except MessageError as err:
                self.n_malformed += 1
                self.last_error = str(err)
                if self.n_malformed <= 5 or self.n_malformed % 100 == 0:
                    log.warning("malformed ward message #%d dropped: %s", self.n_malformed, err)
        if newest is not None:
            self.n_status += 1
            if self.window is not None:
                self.window.set_status(*newest, received_at=self._mono())
        while True:
            try:
                alarm_id, ok, error = self._replies.get_nowait()
            except queue.Empty:
                break
            if self.window is not None:
                self.window.ack_done(alarm_id, ok, error)
        return n

    def ack(self, alarm_id: str) -> None:
        """Send ``{"cmd": "ack", "alarm": alarm_id, "by": user}`` in a worker thread; the
        outcome reaches the window's ``ack_done`` at a later :meth:`poll`."""
        if self.control_endpoint is None:
            self._replies.put((alarm_id, False, "no control endpoint given (--control)"))
            return
        req = {"cmd": "ack", "alarm": alarm_id, "by": self.user}
        threading.Thread(target=self._ack, args=(req,), name="ward-ack", daemon=True).start()

    def _ack(self, req: dict) -> None:
        try:
            reply = request(self.control_endpoint, req, timeout_s=self.ack_timeout_s, curve=self.curve)
            ok = reply.get("ok") is True
            error = None if ok else str(reply.get("error", "refused"))[:200]
        except Exception as err:  # whatever the client raises, the button must come back
            ok, error = False, str(err) or type(err).__name__
        if not ok:
            log.warning("acknowledging %s failed: %s", req["alarm"], error)
        self._replies.put((req["alarm"], ok, error))

    def close(self) -> None:
        self.sock.close(linger=0)

    def __enter__(self) -> WardFeed:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


"""Paced ACL credits: the harness controller withholds Number Of Completed Packets until
the host has used every credit it has, then gives them back, so a host sending a burst
(write without response --repeat 200) really runs out of credits again and again. The
controller's own checks (`violations`) catch a host that sends beyond its credits."""

from __future__ import annotations

import asyncio

from .controller import HarnessController


class CreditPacer:
    def __init__(self, controller: HarnessController, buffers: int | None = None) -> None:
        """`buffers`: the LE ACL buffer count the controller reports; set it before the
        host starts (it reads it once at start-up). Few buffers make credits run out
        after a few packets."""
        self.controller = controller
        if buffers is not None:
            controller.total_num_le_acl_data_packets = buffers
        self.exhausted = 0  # times the host had no credit left
        self._finished = False
        controller.hold_completions = True
        receive = controller.on_hci_acl_data_packet

        def paced(packet) -> None:
            receive(packet)
            if self._finished:
                return
            if sum(controller._outstanding.values()) >= controller.acl_credits:
                self.exhausted += 1
                # After this packet has been handled: the host is out of credits until then.
                asyncio.get_running_loop().call_soon(controller.release_completions)

        controller.on_hci_acl_data_packet = paced  # type: ignore[method-assign]

    def finish(self) -> None:
        """Completions flow freely again, and whatever is held is given back (a host may
        wait for its last packets to complete before it disconnects)."""
        self._finished = True
        self.controller.hold_completions = False
        self.controller.release_completions()

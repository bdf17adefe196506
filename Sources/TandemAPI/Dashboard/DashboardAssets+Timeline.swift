/// `GET /dashboard/timeline.js`: one recipient's events and the policy's deadlines drawn on a time axis (SVG).
///
/// Each event is a `g.event[data-event][data-ms]` whose circle sits at its time; each deadline a
/// `line.deadline[data-deadline]`. The axis spans the events and the push deadlines (`noDeliveryAck`,
/// `noRead`); a later deadline (a long `lifetime`, the SMS validity) is drawn only when it is near, else listed.
extension DashboardAssets {
    static let timelineScript = #"""
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const NAMES = {
    routed: "routed", pushAccepted: "push accepted", pushRejected: "push rejected", deliveryAcknowledged: "acknowledged",
    readReported: "read", timerFired: "timer fired", manualFallbackRequested: "manual fallback", supersededBySMS: "superseded by SMS",
    smsSubmitted: "SMS submitted", smsReportReceived: "delivery report", smsPartReported: "delivery report", expired: "expired"
  };
  const CLASSES = {
    smsSubmitted: "sms", smsReportReceived: "sms", smsPartReported: "sms", pushRejected: "bad", expired: "bad",
    timerFired: "timer", manualFallbackRequested: "timer"
  };
  const WHY = {
    noAppKey: "SMS at once: the message named no app",
    pushNotAllowed: "SMS at once: the message's channels do not allow a push",
    noPushableDevice: "SMS at once: no verified install with a push token for this number",
    notificationsDisabled: "SMS at once: the app reported notifications disabled",
    pushFailed: "SMS fallback: every push target refused the push",
    noDeliveryAck: "SMS fallback: no delivery acknowledgement before the noDeliveryAck deadline",
    noRead: "SMS fallback: not read before the noRead deadline",
    manual: "SMS fallback: the sender asked for it (manual fallback)"
  };
  const AXIS_LEFT = 60, AXIS_RIGHT = 940, AXIS_Y = 95, WIDTH = 1000, HEIGHT = 170;

  function el(name, attributes, text) {
    const node = document.createElementNS(NS, name);
    for (const key in attributes) node.setAttribute(key, String(attributes[key]));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function seconds(ms) {
    const s = ms / 1000;
    return (s >= 10 || Number.isInteger(s) ? String(Math.round(s * 10) / 10) : s.toFixed(3)) + "s";
  }

  /** A "nice" tick step (1, 2, 5 × 10^n ms) giving at most ~10 ticks over `span` ms. */
  function step(span) {
    const raw = Math.max(1, span / 10);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
    return 10 * power;
  }

  /** The explanation of the recipient's outcome, one sentence. */
  function why(recipient) {
    if (recipient.queued) return "Queued in the message's spool: no delivery yet";
    if (recipient.smsCause) return WHY[recipient.smsCause] || ("SMS: " + recipient.smsCause);
    if (recipient.rejectReason) return "Rejected: " + recipient.rejectReason;
    if (recipient.final) return "Ended " + recipient.status + " by " + (recipient.channel || "no channel") + " without SMS (" + recipient.resolution + ")";
    return "In progress: " + recipient.status;
  }

  /** An <svg class="timeline"> for `recipient` ({events:[{ms,event,detail}], deadlines:[{timer,ms,armed}]}). */
  function draw(recipient) {
    const svg = el("svg", { "class": "timeline", viewBox: "0 0 " + WIDTH + " " + HEIGHT, role: "img" });
    const events = recipient.events.map(function (e) { return Object.assign({}, e, { ms: Number(e.ms) }); });
    const deadlines = recipient.deadlines.map(function (d) { return Object.assign({}, d, { ms: Number(d.ms) }); });
    if (events.length === 0) {
      svg.appendChild(el("text", { x: AXIS_LEFT, y: AXIS_Y, "class": "label" }, "no events yet"));
      return { svg: svg, offAxis: deadlines };
    }
    const start = events[0].ms;
    let end = events[events.length - 1].ms;
    for (const d of deadlines) if (d.timer === "noDeliveryAck" || d.timer === "noRead") end = Math.max(end, d.ms);
    let span = Math.max(end - start, 1000);
    // A later deadline joins the axis when it is at most half the span again away.
    const onAxis = deadlines.filter(function (d) { return d.ms >= start && d.ms <= start + span * 1.5; });
    for (const d of onAxis) end = Math.max(end, d.ms);
    span = Math.max(end - start, 1000) * 1.05;
    const x = function (ms) { return AXIS_LEFT + (AXIS_RIGHT - AXIS_LEFT) * (ms - start) / span; };
    svg.dataset.start = String(start);
    svg.dataset.span = String(span);

    svg.appendChild(el("line", { "class": "axis", x1: AXIS_LEFT, y1: AXIS_Y, x2: AXIS_RIGHT, y2: AXIS_Y }));
    const tick = step(span);
    for (let t = 0; t <= span; t += tick) {
      const g = el("g", { "class": "tick" });
      g.appendChild(el("line", { x1: x(start + t), y1: AXIS_Y - 4, x2: x(start + t), y2: AXIS_Y + 4 }));
      g.appendChild(el("text", { x: x(start + t), y: AXIS_Y + 18, "text-anchor": "middle" }, "+" + seconds(t)));
      svg.appendChild(g);
    }
    const labelled = new Map(); // ms -> names: deadlines at one instant share one label
    for (const d of onAxis) {
      svg.appendChild(el("line", { "class": "deadline", "data-deadline": d.timer, "data-ms": d.ms, x1: x(d.ms), y1: 14, x2: x(d.ms), y2: AXIS_Y + 26 }));
      labelled.set(d.ms, (labelled.get(d.ms) || []).concat([d.timer + (d.armed ? " (armed)" : "")]));
    }
    Array.from(labelled.keys()).sort(function (a, b) { return a - b; }).forEach(function (ms, i) {
      const right = x(ms) > (AXIS_LEFT + AXIS_RIGHT) / 2;
      svg.appendChild(el("text", { "class": "deadline-label", x: x(ms) + (right ? -4 : 4), y: 11 + 12 * (i % 2), "text-anchor": right ? "end" : "start" },
        labelled.get(ms).join(", ") + " deadline +" + seconds(ms - start)));
    });
    events.forEach(function (e, i) {
      const g = el("g", { "class": "event " + (CLASSES[e.event] || "push"), "data-event": e.event, "data-ms": e.ms });
      g.appendChild(el("circle", { cx: x(e.ms), cy: AXIS_Y, r: 6 }));
      const above = i % 2 === 0;
      const label = (NAMES[e.event] || e.event) + (e.event === "timerFired" ? " (" + e.detail + ")" : "");
      g.appendChild(el("text", { "class": "label", x: x(e.ms), y: above ? AXIS_Y - 14 - (i % 4 === 0 ? 0 : 14) : AXIS_Y + 36 + (i % 4 === 1 ? 0 : 14), "text-anchor": "middle" }, label));
      g.appendChild(el("title", {}, (NAMES[e.event] || e.event) + " at " + e.at + (e.detail ? " — " + e.detail : "")));
      svg.appendChild(g);
    });
    return { svg: svg, offAxis: deadlines.filter(function (d) { return onAxis.indexOf(d) < 0; }) };
  }

  window.TandemTimeline = { draw: draw, why: why, names: NAMES, seconds: seconds };
})();
"""#
}

/// The dashboard's page (`GET /dashboard`): the token form, the live tiles and the message search.
///
/// Every number cell names the series it shows (`data-metric`, `data-labels` as `key=value,…`): the script
/// fills it with the sum of the matching samples of the last scrape, `0` when the metric exists without a
/// matching series, `—` when the metric does not exist at all. `data-volatile` marks cells that change with
/// every scrape (the dashboard's own requests); `data-ratio` cells are percentages of two such sums.
extension DashboardAssets {
    static let page = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tandem dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/dashboard.css">
<script src="/dashboard/metrics.js" defer></script>
<script src="/dashboard/timeline.js" defer></script>
<script src="/dashboard/dashboard.js" defer></script>
</head>
<body data-scrapes="0">
<header>
  <h1>Tandem</h1>
  <nav>
    <a href="#live" id="nav-live">Live</a>
    <a href="#messages" id="nav-messages">Messages</a>
  </nav>
  <span id="status" role="status"></span>
  <button type="button" id="signout" hidden>Forget token</button>
</header>

<section id="login" hidden>
  <form id="login-form">
    <h2>Admin token</h2>
    <p>The dashboard reads the admin API: give the token the server was started with (<code>TANDEM_ADMIN_TOKEN</code>).
    It is kept in this tab only (session storage) and sent as <code>Authorization: Bearer</code>.</p>
    <input type="password" id="token" autocomplete="off" required aria-label="admin token">
    <button type="submit" id="login-submit">Open</button>
    <p id="login-error" class="error"></p>
  </form>
</section>

<main id="live" hidden>
  <section class="tile" id="tile-throughput">
    <h2>Throughput by channel</h2>
    <p class="big"><span class="v" data-metric="tandem_messages_accepted_total" data-labels="">—</span> <small>recipients accepted</small></p>
    <table>
      <thead><tr><th>channel</th><th>started</th><th>finished</th><th>started/s</th></tr></thead>
      <tbody>
        <tr><td>push</td><td class="v" data-metric="tandem_deliveries_started_total" data-labels="channel=push">—</td>
          <td class="v" data-metric="tandem_deliveries_finished_total" data-labels="channel=push">—</td>
          <td class="rate" data-rate="tandem_deliveries_started_total" data-labels="channel=push">—</td></tr>
        <tr><td>sms</td><td class="v" data-metric="tandem_deliveries_started_total" data-labels="channel=sms">—</td>
          <td class="v" data-metric="tandem_deliveries_finished_total" data-labels="channel=sms">—</td>
          <td class="rate" data-rate="tandem_deliveries_started_total" data-labels="channel=sms">—</td></tr>
        <tr><td>none</td><td class="v" data-metric="tandem_deliveries_started_total" data-labels="channel=none">—</td>
          <td class="v" data-metric="tandem_deliveries_finished_total" data-labels="channel=none">—</td>
          <td class="rate" data-rate="tandem_deliveries_started_total" data-labels="channel=none">—</td></tr>
      </tbody>
    </table>
  </section>

  <section class="tile" id="tile-fallbacks">
    <h2>Fallbacks to SMS</h2>
    <p class="big"><span class="v" data-metric="tandem_fallbacks_total" data-labels="">—</span> <small>fallbacks</small>
      · <span class="ratio" data-ratio="tandem_fallbacks_total" data-labels="" data-of="tandem_deliveries_started_total" data-of-labels="channel=push">—</span>
      <small>of pushes</small></p>
    <table><thead><tr><th>cause</th><th>count</th></tr></thead><tbody id="fallback-causes" data-family="tandem_fallbacks_total" data-by="cause"></tbody></table>
  </section>

  <section class="tile" id="tile-inflight">
    <h2>In flight</h2>
    <p class="big"><span class="v" data-metric="tandem_deliveries_in_flight" data-labels="">—</span> <small>deliveries</small></p>
    <p><span class="v" data-metric="tandem_http_requests_in_flight" data-labels="" data-volatile="">—</span> <small>HTTP requests (this scrape included)</small></p>
  </section>

  <section class="tile" id="tile-timers">
    <h2>Timer wheel by horizon</h2>
    <svg id="timer-bars" class="bars" viewBox="0 0 300 110" role="img" aria-label="timers pending by horizon"></svg>
    <table>
      <thead><tr><th>due in</th><th>timers</th></tr></thead>
      <tbody>
        <tr><td>≤ 1 min</td><td class="v" data-metric="tandem_timers_pending" data-labels="horizon=le_1m">—</td></tr>
        <tr><td>≤ 10 min</td><td class="v" data-metric="tandem_timers_pending" data-labels="horizon=le_10m">—</td></tr>
        <tr><td>≤ 1 h</td><td class="v" data-metric="tandem_timers_pending" data-labels="horizon=le_1h">—</td></tr>
        <tr><td>≤ 1 day</td><td class="v" data-metric="tandem_timers_pending" data-labels="horizon=le_1d">—</td></tr>
        <tr><td>&gt; 1 day</td><td class="v" data-metric="tandem_timers_pending" data-labels="horizon=gt_1d">—</td></tr>
      </tbody>
    </table>
  </section>

  <section class="tile" id="tile-providers">
    <h2>Provider health</h2>
    <table>
      <tbody>
        <tr><td>SMPP binds up</td><td class="v" data-metric="tandem_smpp_binds_up" data-labels="">—</td></tr>
        <tr><td>APNs requests active</td><td class="v" data-metric="tandem_push_requests_active" data-labels="provider=apns">—</td></tr>
        <tr><td>FCM requests active</td><td class="v" data-metric="tandem_push_requests_active" data-labels="provider=fcm">—</td></tr>
        <tr><td>APNs pushes</td><td class="v" data-metric="tandem_pushes_total" data-labels="provider=apns">—</td></tr>
        <tr><td>APNs not accepted</td><td class="ratio" data-ratio="tandem_pushes_total" data-labels="provider=apns,outcome!=accepted" data-of="tandem_pushes_total" data-of-labels="provider=apns">—</td></tr>
        <tr><td>FCM pushes</td><td class="v" data-metric="tandem_pushes_total" data-labels="provider=fcm">—</td></tr>
        <tr><td>FCM not accepted</td><td class="ratio" data-ratio="tandem_pushes_total" data-labels="provider=fcm,outcome!=accepted" data-of="tandem_pushes_total" data-of-labels="provider=fcm">—</td></tr>
        <tr><td>SMS submitted</td><td class="v" data-metric="tandem_sms_total" data-labels="outcome=submitted">—</td></tr>
        <tr><td>SMS refused or in error</td><td class="ratio" data-ratio="tandem_sms_total" data-labels="outcome=rejected|error" data-of="tandem_sms_total" data-of-labels="outcome=submitted|rejected|error">—</td></tr>
        <tr><td>SMS reported failed</td><td class="v" data-metric="tandem_sms_total" data-labels="outcome=failed">—</td></tr>
      </tbody>
    </table>
  </section>

  <section class="tile" id="tile-backlog">
    <h2>Spool and outbox</h2>
    <table>
      <tbody>
        <tr><td>Spool backlog (recipients)</td><td class="v" data-metric="tandem_spool_backlog" data-labels="">—</td></tr>
        <tr><td>Spooled, not started</td><td class="v" data-metric="tandem_spool_recipients_queued" data-labels="">—</td></tr>
        <tr><td>Outbox backlog (status reports)</td><td class="v" data-metric="tandem_outbox_backlog" data-labels="">—</td></tr>
        <tr><td>Status reports given up</td><td class="v" data-metric="tandem_status_reports_total" data-labels="outcome=given_up">—</td></tr>
      </tbody>
    </table>
  </section>

  <section class="tile" id="tile-server">
    <h2>Server</h2>
    <table>
      <tbody>
        <tr><td>Store commits</td><td class="v" data-metric="tandem_store_commits_total" data-labels="">—</td></tr>
        <tr><td>Failed commits</td><td class="v" data-metric="tandem_store_failed_commits_total" data-labels="">—</td></tr>
      </tbody>
    </table>
    <table><thead><tr><th>API route</th><th>requests</th></tr></thead>
      <tbody id="http-routes" data-family="tandem_http_requests_total" data-by="route"></tbody></table>
  </section>
</main>

<main id="messages" hidden>
  <form id="search-form" class="search">
    <select id="search-by" aria-label="search by">
      <option value="id">message id</option>
      <option value="reference">reference</option>
      <option value="msisdn">number</option>
    </select>
    <input id="search-value" required aria-label="search for" placeholder="a message id, a reference or +31612345678">
    <button type="submit" id="search-submit">Search</button>
  </form>
  <p id="search-summary"></p>
  <div id="results"></div>
</main>
</body>
</html>
"""#
}

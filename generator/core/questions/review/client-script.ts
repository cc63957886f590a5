/**
 * The review page's only script, kept as plain browser JavaScript (no build step, no
 * network). The page's Content-Security-Policy allows exactly this script by its hash, so
 * even text that slipped past escaping could not run.
 *
 * Decisions are kept in localStorage under a key derived from the question set, merged over
 * the statuses the page was rendered with, and exported as a JSONL decisions file for
 * `aptpace review --apply`.
 */
export const REVIEW_CLIENT_SCRIPT = String.raw`(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('review-data').textContent);
  var storageKey = 'aptpace-review:' + data.setKey;
  var stored = {};
  try { stored = JSON.parse(window.localStorage.getItem(storageKey) || '{}') || {}; } catch (e) { stored = {}; }
  // A decision taken on another version of a question (same id, rebuilt text) does not apply
  // to this one. It is set aside, not erased: the page of that version still shows it.
  var local = {};
  var setAside = {};
  Object.keys(stored).forEach(function (id) {
    if (!stored[id]) return;
    if (stored[id].content === data.contents[id]) local[id] = stored[id];
    else setAside[id] = stored[id];
  });

  function save() {
    var all = {};
    Object.keys(setAside).forEach(function (id) { if (!local[id]) all[id] = setAside[id]; });
    Object.keys(local).forEach(function (id) { all[id] = local[id]; });
    try { window.localStorage.setItem(storageKey, JSON.stringify(all)); } catch (e) { /* private mode: decisions live until the tab closes */ }
  }
  function current(id) {
    return local[id] || data.initial[id] || { status: 'unreviewed' };
  }
  var cards = Array.prototype.slice.call(document.querySelectorAll('article.question'));

  function paint(card) {
    var id = card.getAttribute('data-id');
    var decision = current(id);
    card.setAttribute('data-status', decision.status);
    card.querySelector('.status-value').textContent = decision.status + (local[id] ? ' (unsaved: export to keep)' : '');
    var note = card.querySelector('textarea.note');
    if (document.activeElement !== note) note.value = decision.note || '';
  }
  function counts() {
    var tally = { approved: 0, rejected: 0, pending: 0, unreviewed: 0 };
    cards.forEach(function (card) { tally[current(card.getAttribute('data-id')).status]++; });
    document.getElementById('count-approved').textContent = tally.approved;
    document.getElementById('count-rejected').textContent = tally.rejected;
    document.getElementById('count-pending').textContent = tally.pending + tally.unreviewed;
    document.getElementById('count-local').textContent = Object.keys(local).length;
  }
  function decide(card, status) {
    var id = card.getAttribute('data-id');
    var note = card.querySelector('textarea.note').value.trim();
    var decision = { status: status, content: data.contents[id] };
    if (note) decision.note = note;
    var initial = data.initial[id];
    if (initial && initial.status === decision.status && (initial.note || '') === (decision.note || '')) delete local[id];
    else local[id] = decision;
    save();
    paint(card);
    counts();
  }
  function hasWord(list, word) {
    return (' ' + (list || '') + ' ').indexOf(' ' + word + ' ') !== -1;
  }
  function applyFilters() {
    var task = document.getElementById('filter-task').value;
    var kind = document.getElementById('filter-kind').value;
    var operator = document.getElementById('filter-operator').value;
    var flag = document.getElementById('filter-flag').value;
    var status = document.getElementById('filter-status').value;
    var text = document.getElementById('filter-text').value.trim().toLowerCase();
    var shown = 0;
    cards.forEach(function (card) {
      var s = current(card.getAttribute('data-id')).status;
      var flags = card.getAttribute('data-flags') || '';
      var ok = (!task || card.getAttribute('data-task') === task)
        && (!kind || card.getAttribute('data-kind') === kind)
        && (!operator || hasWord(card.getAttribute('data-operators'), operator))
        && (!flag || (flag === '*' ? flags !== '' : flag === '-' ? flags === '' : hasWord(flags, flag)))
        && (!status || s === status || (status === 'open' && (s === 'pending' || s === 'unreviewed')))
        && (!text || card.getAttribute('data-search').indexOf(text) !== -1);
      card.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById('count-shown').textContent = shown;
  }
  function shownCards() {
    return cards.filter(function (card) { return !card.hidden; });
  }
  // Bulk decisions apply to exactly the cards the filters show, after a confirmation that
  // names how many, so a filter typo cannot approve the whole set unseen.
  function bulk(status) {
    var targets = shownCards();
    if (targets.length === 0) return;
    if (!window.confirm((status === 'approved' ? 'Approve ' : 'Reject ') + targets.length + ' shown question(s)?')) return;
    targets.forEach(function (card) { decide(card, status); });
    applyFilters();
  }
  var focused = -1;
  function focusCard(step) {
    var shown = shownCards();
    if (shown.length === 0) return;
    var at = focused >= 0 ? shown.indexOf(cards[focused]) : -1;
    var next = at < 0 ? (step > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + step));
    if (focused >= 0) cards[focused].classList.remove('current');
    focused = cards.indexOf(shown[next]);
    var card = cards[focused];
    card.classList.add('current');
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: 'start' });
  }
  function onKey(event) {
    var target = event.target;
    var tag = target && target.tagName ? target.tagName.toLowerCase() : '';
    if (tag === 'textarea' || tag === 'input' || tag === 'select' || event.ctrlKey || event.metaKey || event.altKey) return;
    var decision = { a: 'approved', r: 'rejected', p: 'pending' }[event.key];
    if (event.key === 'j') focusCard(1);
    else if (event.key === 'k') focusCard(-1);
    else if (decision && focused >= 0) { decide(cards[focused], decision); applyFilters(); }
    else if (event.key === 'n' && focused >= 0) cards[focused].querySelector('textarea.note').focus();
    else return;
    event.preventDefault();
  }
  function exportDecisions() {
    var ids = Object.keys(local).sort();
    if (ids.length === 0) { window.alert('No new decisions to export.'); return; }
    var lines = ids.map(function (id) {
      var d = local[id];
      var entry = { id: id, status: d.status };
      if (d.note) entry.note = d.note;
      entry.content = d.content;
      return JSON.stringify(entry);
    });
    var blob = new Blob([lines.join('\n') + '\n'], { type: 'application/x-ndjson' });
    var link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = 'review-decisions.jsonl';
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 0);
  }

  cards.forEach(function (card) {
    Array.prototype.forEach.call(card.querySelectorAll('button[data-decide]'), function (button) {
      button.addEventListener('click', function () { decide(card, button.getAttribute('data-decide')); applyFilters(); });
    });
    card.querySelector('textarea.note').addEventListener('change', function () {
      var s = current(card.getAttribute('data-id')).status;
      if (s !== 'unreviewed') decide(card, s);
    });
    paint(card);
  });
  document.getElementById('export').addEventListener('click', exportDecisions);
  document.getElementById('forget').addEventListener('click', function () {
    if (!window.confirm('Forget the decisions made in this browser and not yet exported?')) return;
    local = {};
    save();
    cards.forEach(paint);
    counts();
    applyFilters();
  });
  document.getElementById('bulk-approve').addEventListener('click', function () { bulk('approved'); });
  document.getElementById('bulk-reject').addEventListener('click', function () { bulk('rejected'); });
  document.addEventListener('keydown', onKey);
  ['filter-task', 'filter-kind', 'filter-operator', 'filter-flag', 'filter-status', 'filter-text'].forEach(function (id) {
    document.getElementById(id).addEventListener('input', applyFilters);
  });
  counts();
  applyFilters();
})();
`;

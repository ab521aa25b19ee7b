// A game page's report form: one reason, one click; the answer is said in the form's status line.
// A link to #report (each leaderboard row has one) opens it.
const form = document.querySelector('form[data-report]');
if (form) {
  const status = form.querySelector('[role="status"]');
  const details = form.closest('details');
  if (details && window.location.hash === '#report') details.open = true;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const reason = new FormData(form).get('reason');
    const button = form.querySelector('button');
    button.disabled = true;
    let answer = 'failed';
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(form.dataset.report)}/report`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ reason }),
      });
      answer = r.ok ? 'done' : r.status === 429 ? 'busy' : 'failed';
    } catch {
      answer = 'failed';
    }
    status.textContent = status.dataset[answer];
    button.disabled = answer === 'done';
  });
}

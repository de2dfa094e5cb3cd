/**
 * Forged deliveries beside the Money Trigger's real ones in `bench:webhook-server` (issue 30,
 * item 4): signed with another secret, so every one is refused.
 */

import { signWebhook } from '../../sandbox/domain/webhooks';

/** At most as many in flight as the real sender. */
export const FORGED_IN_FLIGHT = 8;

/**
 * Forged deliveries (a signature made with another secret) at `perSecond` to `url` until stopped,
 * at most FORGED_IN_FLIGHT at a time (as many as the real sender): a rate n8n cannot answer is
 * offered, not piled up; the rate achieved is reported. Their answers are counted.
 */
export function forge(url: string, perSecond: number): { stop(): Promise<{ sent: number; perSecond: number; answers: Record<string, number> }> } {
	const started = Date.now();
	const answers: Record<string, number> = {};
	const inFlight = new Set<Promise<void>>();
	let sent = 0;
	const body = JSON.stringify({ id: 'evt_forged', event: 'charge.completed', data: { reference: 'CH-forged', type: 'charge', status: { code: 1, label: 'COMPLETED' } } });
	const timer = setInterval(() => {
		if (inFlight.size >= FORGED_IN_FLIGHT) return;
		const headers = signWebhook({ url, scheme: 'request-style', secret: 'not-the-webhook-secret' }, body, Math.floor(Date.now() / 1000));
		sent++;
		const request: Promise<void> = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
			.then(async (res) => {
				await res.arrayBuffer();
				answers[res.status] = (answers[res.status] || 0) + 1;
			})
			.catch(() => {
				answers.error = (answers.error || 0) + 1;
			})
			.finally(() => inFlight.delete(request));
		inFlight.add(request);
	}, 1000 / perSecond);
	return {
		async stop() {
			clearInterval(timer);
			await Promise.all([...inFlight]);
			return { sent, perSecond: sent / ((Date.now() - started) / 1000), answers };
		},
	};
}

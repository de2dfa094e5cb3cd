import type { IncomingMessage, ServerResponse } from 'node:http';
import { TransitionError } from '../domain/service';
import type { SandboxRuntime } from '../runtime';
import { PAYMENT_PAGE_PREFIX } from './api-host';
import { sendJson } from './util';

const escapeHtml = (text: string): string =>
	text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Stands in for the in-app approval behind `redirect_link`: GET shows the charge, POST approve/decline settles it. */
export function createPaymentPageHandler(runtime: SandboxRuntime) {
	return (request: IncomingMessage, response: ServerResponse): void => {
		const path = (request.url ?? '').slice(PAYMENT_PAGE_PREFIX.length).split('?')[0];
		const [encodedReference, action] = path.split('/');
		let reference = '';
		try {
			reference = decodeURIComponent(encodedReference ?? '');
		} catch {
			reference = '';
		}
		const tx = runtime.store.byRef(reference);
		if (!tx || tx.resource !== 'charge' || tx.channel !== 'platform') {
			sendJson(response, runtime.clock, 404, { error: 'not_found', message: 'no platform charge with this reference' });
			return;
		}
		if (request.method === 'POST' && (action === 'approve' || action === 'decline')) {
			try {
				runtime.service.setStatus(reference, action === 'approve' ? 'COMPLETED' : 'CANCELLED');
				sendJson(response, runtime.clock, 200, { success: true, data: runtime.service.envelope(tx) });
			} catch (error) {
				if (!(error instanceof TransitionError)) throw error;
				sendJson(response, runtime.clock, 409, { error: error.code, message: error.message });
			}
			return;
		}
		if (request.method !== 'GET' || action !== undefined) {
			sendJson(response, runtime.clock, 404, { error: 'not_found', message: 'use GET, or POST .../approve or .../decline' });
			return;
		}
		const ref = escapeHtml(encodeURIComponent(reference));
		const html = `<!doctype html><html><head><meta charset="utf-8"><title>Sandbox payment approval</title></head><body>
<h1>Approve payment (SANDBOX)</h1>
<p>${escapeHtml(`${tx.amount} ${tx.currency}`)} to ${escapeHtml(runtime.clients.get(tx.clientId)?.settings.merchant.name ?? tx.clientId)}; status ${tx.status}</p>
<form method="post" action="${PAYMENT_PAGE_PREFIX}${ref}/approve"><button>Approve</button></form>
<form method="post" action="${PAYMENT_PAGE_PREFIX}${ref}/decline"><button>Decline</button></form>
</body></html>`;
		response.writeHead(200, { date: runtime.clock.httpDate(), 'content-type': 'text/html; charset=utf-8' });
		response.end(html);
	};
}

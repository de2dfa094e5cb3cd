/**
 * One request and its whole answer, ended by `timeoutMs` (null: no bound) or `signal` (rejecting)
 * whatever state the exchange is in. Node's fetch cannot be trusted to end it alone: aborted while
 * it reads a body, it leaves that read pending for ever (nodejs/node#56917: no socket, no timer,
 * nothing to wake it), and it keeps only a weak reference to its signal, so a collected
 * AbortSignal.timeout never fires. Here a timer of its own rejects, and the abort only frees the
 * connection. The control client and every harness request with a deadline (scripts/n8n) use it.
 */
export async function fetchText(url: string, init: RequestInit & { timeoutMs: number | null }): Promise<{ status: number; headers: Headers; text: string }> {
	const { timeoutMs, signal, ...rest } = init;
	const controller = new AbortController();
	let timer: NodeJS.Timeout | undefined;
	let onAbort = () => {};
	const ended = new Promise<never>((_, reject) => {
		const end = (reason: unknown) => {
			controller.abort(reason);
			reject(reason);
		};
		if (timeoutMs !== null) timer = setTimeout(() => end(new Error(`timeout after ${timeoutMs} ms: no answer from ${url}`)), timeoutMs);
		onAbort = () => end(signal?.reason ?? new Error('aborted'));
		if (signal?.aborted) onAbort();
		else signal?.addEventListener('abort', onAbort, { once: true });
	});
	const exchange = (async () => {
		const res = await fetch(url, { ...rest, signal: controller.signal });
		return { status: res.status, headers: res.headers, text: await res.text() };
	})();
	exchange.catch(() => undefined);
	try {
		return await Promise.race([exchange, ended]);
	} finally {
		clearTimeout(timer);
		signal?.removeEventListener('abort', onAbort);
	}
}

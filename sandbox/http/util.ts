import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxClock } from '../domain/clock';

export class BodyTooLargeError extends Error {}

export function readRawBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		request.on('data', (chunk: Buffer) => {
			if (tooLarge) return;
			size += chunk.length;
			if (size > maxBytes) {
				tooLarge = true;
				chunks.length = 0;
				return;
			}
			chunks.push(chunk);
		});
		request.on('end', () => (tooLarge ? reject(new BodyTooLargeError('request body too large')) : resolve(Buffer.concat(chunks))));
		request.on('error', reject);
	});
}

export function sendJson(
	response: ServerResponse,
	clock: SandboxClock,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	if (response.headersSent || response.destroyed) return;
	const payload = typeof body === 'string' ? body : JSON.stringify(body);
	response.writeHead(status, {
		date: clock.httpDate(),
		'content-type': 'application/json; charset=utf-8',
		'content-length': String(Buffer.byteLength(payload)),
		...headers,
	});
	response.end(payload);
}

export function headerValue(request: IncomingMessage, name: string): string | undefined {
	const value = request.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { CREDENTIAL_TYPE, credentialFromSandbox, type Engine } from '../harness/engine';

/** What the gateway makes of one answer of a charge or payout list: the JSON body, the request's URL (path and query). */
export type ListRewrite = (body: IDataObject, url: URL) => IDataObject;

/**
 * A gateway on loopback in front of the sandbox, standing for a Money API whose list answers differ
 * from the sandbox's in one way the spec allows or leaves open: every request is forwarded as it
 * came (the query is signed, so it is never changed), `beforeList` runs before a list request is
 * forwarded (the list changing between two requests), and the answers of the list routes are
 * rewritten by `rewrite`. `credentialId` names a stored Money credential whose Base URL is the
 * gateway's.
 */
export async function startListGateway(
	engine: Engine,
	sandbox: Sandbox,
	rewrite: ListRewrite = (body) => body,
	beforeList: (url: URL) => Promise<void> = async () => {},
): Promise<{ credentialId: string; close: () => Promise<void> }> {
	const upstream = new URL(sandbox.info.baseUrl);
	const server = createServer((incoming, outgoing) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', async () => {
			const url = new URL(incoming.url ?? '/', upstream.origin);
			const isList = incoming.method === 'GET' && /\/money\/v1\/(charge|payout)$/.test(url.pathname);
			if (isList) await beforeList(url);
			const target = { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } };
			const forwarded = httpRequest(target, (answer) => {
				const body: Buffer[] = [];
				answer.on('data', (chunk: Buffer) => body.push(chunk));
				answer.on('end', () => {
					let text = Buffer.concat(body);
					const headers = { ...answer.headers };
					if (isList && answer.statusCode === 200) {
						text = Buffer.from(JSON.stringify(rewrite(JSON.parse(text.toString('utf8')) as IDataObject, url)));
						delete headers['content-length'];
					}
					outgoing.writeHead(answer.statusCode ?? 502, headers);
					outgoing.end(text);
				});
			});
			forwarded.end(Buffer.concat(chunks));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const credentialId = `list-gateway-${port}`;
	const baseUrl = `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`;
	engine.credentials.set(credentialId, CREDENTIAL_TYPE, credentialFromSandbox({ ...sandbox.info, baseUrl }));
	return { credentialId, close: async () => await new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** An API that answers at most `size` transactions a page, whatever the limit asked (page 1 as such an API gives it). */
export function pagesOf(size: number): ListRewrite {
	return (body) => {
		const pagination = body.pagination as IDataObject;
		const total = Number(pagination.total);
		return { ...body, data: (body.data as unknown[]).slice(0, size), pagination: { ...pagination, limit: size, pages: Math.ceil(total / size) } };
	};
}

/** created_at as an API writes it that gives the fraction of a second only when it is not zero (Go's RFC 3339 with nanoseconds, Python's isoformat). */
export const fractionOnlyWhenNotZero: ListRewrite = (body) => ({
	...body,
	data: (body.data as IDataObject[]).map((envelope) => ({ ...envelope, created_at: String(envelope.created_at).replace(/\.000Z$/, 'Z') })),
});

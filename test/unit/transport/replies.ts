import type { IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

export const node: INode = { id: 'n1', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };

/** What the HTTP client gives for one attempt: a full response, or a thrown error. */
export type Reply = { statusCode: number; body?: unknown; headers?: Record<string, string> } | Error;

/** Just what the transport reads of n8n: the node, the cancel signal, the logger, the credential (when given), and the authenticated request, answering `replies` in turn. */
export function fakeContext(replies: Reply[], signal?: AbortSignal, credential?: Record<string, unknown>) {
	const calls: IHttpRequestOptions[] = [];
	const context = {
		getNode: () => node,
		...(credential ? { getCredentials: async () => credential } : {}),
		getExecutionCancelSignal: () => signal,
		logger: { debug: () => {}, warn: () => {} },
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				calls.push(JSON.parse(JSON.stringify(options)));
				const reply = replies.shift();
				if (!reply) throw new Error('no more replies');
				if (reply instanceof Error) throw reply;
				return { headers: {}, body: {}, ...reply };
			},
		},
	};
	return { context: context as unknown as IExecuteFunctions, calls };
}

export const fast = { maxRetries: 3, baseDelayMs: 1 };

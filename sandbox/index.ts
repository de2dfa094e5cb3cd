import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveConfig } from './config';
import { InProcessControl } from './control/in-process';
import { createControlHandler } from './control/routes';
import type { SandboxClientInfo, SandboxControl, SandboxInfo } from './control/types';
import type { SandboxConfig } from './domain/settings';
import type { WebhookScheme } from './domain/types';
import { createApiHandler } from './http/api-host';
import { createPaymentPageHandler } from './http/payment-page';
import { createTokenHandler } from './http/token-host';
import { SandboxRuntime } from './runtime';

export type { SandboxClientInfo, SandboxControl, SandboxInfo, FinalStatus, HealthReport, Ledger } from './control/types';
export type * from './domain/types';
export type * from './domain/settings';
export type { FaultKind, FaultSpec } from './faults/injector';
export { defaultSandboxConfig, PRIMARY_CLIENT_ID, SECONDARY_CLIENT_ID } from './config';
export { INELIGIBLE_IDENTIFIERS, UNKNOWN_IDENTIFIERS } from './domain/directory';
export { deliverCopies, signWebhook } from './domain/webhooks';
export { SandboxControlClient, SandboxControlError, type SandboxControlClientOptions } from './control/client';
export { moneyCredentialFor, type MoneyCredentialData, type SandboxCredentialSource } from './control/credential';

export interface SandboxOptions {
	port?: number;
	authPort?: number;
	host?: string;
	gatewayPrefix?: string;
	webhookUrl?: string;
	webhookScheme?: WebhookScheme;
	finalizeAfterMs?: number | null;
	tokenTtlSeconds?: number;
	statePath?: string;
	config?: Partial<SandboxConfig>;
}

export interface Sandbox {
	info: SandboxInfo;
	control: SandboxControl;
	close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve((server.address() as AddressInfo).port);
		});
	});
}

function closeServer(server: Server): Promise<void> {
	return new Promise((resolve) => {
		server.close(() => resolve());
		server.closeAllConnections();
	});
}

function normalizePrefix(prefix: string | undefined): string {
	if (!prefix || prefix === '/') return '';
	return `/${prefix.replace(/^\/+|\/+$/g, '')}`;
}

const hostForUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const host = options.host ?? '127.0.0.1';
	const gatewayPrefix = normalizePrefix(options.gatewayPrefix);
	const config = resolveConfig(options.config);
	const runtime = new SandboxRuntime(config, {
		tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
		finalizeAfterMs: options.finalizeAfterMs ?? null,
		statePath: options.statePath,
	});
	runtime.clients.primary().applyPatch({
		...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
		...(options.webhookScheme ? { webhookScheme: options.webhookScheme } : {}),
	});
	const published: { info?: SandboxInfo } = {};
	const control = new InProcessControl(runtime, () => published.info as SandboxInfo);
	const apiServer = createServer(
		createApiHandler(runtime, gatewayPrefix, {
			control: createControlHandler(runtime, control),
			paymentPage: createPaymentPageHandler(runtime),
		}),
	);
	const authServer = createServer(createTokenHandler(runtime));
	apiServer.keepAliveTimeout = 5_000;
	authServer.keepAliveTimeout = 5_000;

	const apiPort = await listen(apiServer, options.port ?? 0, host);
	let authPort: number;
	try {
		authPort = await listen(authServer, options.authPort ?? 0, host);
	} catch (error) {
		await closeServer(apiServer);
		runtime.close();
		throw error;
	}
	const apiOrigin = `http://${hostForUrl(host)}:${apiPort}`;
	runtime.apiOrigin = apiOrigin;

	const [primary, ...others] = runtime.clients.all().map(({ settings: client }): SandboxClientInfo => ({
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		apiKey: client.apiKey,
		hmacSecret: client.hmacSecret,
		webhookSecret: client.webhookSecret,
		rsaPublicKeyPem: client.rsaPublicKeyPem ?? '',
		pin: client.pin,
		merchantAccountNumber: client.wallets[0]?.number ?? '',
	}));
	const samples = runtime.directory.eligibleSamples();
	const info: SandboxInfo = {
		baseUrl: `${apiOrigin}${gatewayPrefix}`,
		authUrl: `http://${hostForUrl(host)}:${authPort}`,
		controlUrl: `${apiOrigin}/_control`,
		...primary,
		payers: samples,
		beneficiaries: samples,
		otherClients: others,
	};
	published.info = info;

	let closing: Promise<void> | undefined;
	return {
		info,
		control,
		close: () => {
			closing ??= (async () => {
				runtime.close();
				await Promise.all([closeServer(apiServer), closeServer(authServer)]);
			})();
			return closing;
		},
	};
}

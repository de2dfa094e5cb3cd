import { generateKeyPairSync } from 'node:crypto';
import { DEFAULT_DIRECTORY } from './domain/directory';
import type { ClientLimits, ClientSettings, ClientSettingsInput, ResolvedConfig, SandboxConfig, WebhookDeliverySettings } from './domain/settings';
import { ROUTE_SLUGS } from './domain/types';

/** Every secret below is a fixed SANDBOX-ONLY default for a local dev tool; override them in a config file. */
export const PRIMARY_CLIENT_ID = 'sandbox-client-1';
export const SECONDARY_CLIENT_ID = 'sandbox-client-2';

export const DEFAULT_LIMITS: ClientLimits = {
	minAmount: 100,
	maxAmount: 5_000_000,
	dailyCap: 50_000_000,
	monthlyCap: 500_000_000,
	velocityLimit: 20,
	velocityWindowSeconds: 300,
};

export const DEFAULT_WEBHOOK_DELIVERY: WebhookDeliverySettings = {
	maxAttempts: 6,
	baseDelayMs: 500,
	timeoutMs: 10_000,
	queueCapacity: 10_000,
	concurrency: 4,
};

function sandboxClient(index: number): ClientSettings {
	return {
		clientId: `sandbox-client-${index}`,
		clientSecret: `sandbox-only-client-secret-${index}`,
		apiKey: `sandbox-only-api-key-${index}`,
		hmacSecret: `sandbox-only-hmac-secret-${index}`,
		webhookSecret: `sandbox-only-webhook-secret-${index}`,
		pin: index === 1 ? '1234' : '5678',
		entitlements: [...ROUTE_SLUGS],
		ipAllowlist: null,
		limits: { ...DEFAULT_LIMITS },
		rateLimit: null,
		linked: true,
		hasPrimaryWallet: true,
		profileIncomplete: false,
		merchantResolvable: true,
		walletRetrievable: true,
		merchant: {
			uniqueId: `MRC-${index}0001`,
			name: `Sandbox Merchant ${index}`,
			type: 'business',
			status: 'active',
			countryCode: 'TG',
			phoneNumber: `+2289100000${index}`,
			createdAt: '2024-01-15T09:00:00.000Z',
			updatedAt: '2024-06-01T12:00:00.000Z',
		},
		wallets: [
			{ number: `WAL-XOF-${index}00001`, currency: 'XOF', balance: 10_000_000 },
			{ number: `WAL-XAF-${index}00001`, currency: 'XAF', balance: 10_000_000 },
		],
		webhookUrl: null,
		webhookScheme: 'request-style',
	};
}

export function defaultSandboxConfig(): SandboxConfig {
	return {
		clients: [sandboxClient(1), sandboxClient(2)],
		directory: DEFAULT_DIRECTORY.map((entry) => ({ ...entry })),
		idempotencyCapacity: 100_000,
		idempotencyFingerprint: 'raw',
		tokenCapacity: 10_000,
		tokenSnapshotsEntitlements: true,
		payoutTypeLabel: 'payout',
		envelopeUpdatedAt: true,
		listRowMetadata: true,
		naiveTimestampsOffsetMinutes: null,
		createdAtWrittenToSecond: false,
		listBoundsExclusive: false,
		listTieOrder: 'stable',
		paymentLinkBase: null,
		webhooks: { ...DEFAULT_WEBHOOK_DELIVERY },
		seed: 1,
		maxBodyBytes: 4 * 1024 * 1024,
	};
}

const generatedKeys = new Map<string, { publicKeyPem: string; privateKeyPem: string }>();

function rsaKeysFor(clientId: string): { publicKeyPem: string; privateKeyPem: string } {
	let keys = generatedKeys.get(clientId);
	if (!keys) {
		const pair = generateKeyPairSync('rsa', {
			modulusLength: 2048,
			publicKeyEncoding: { type: 'spki', format: 'pem' },
			privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
		});
		keys = { publicKeyPem: pair.publicKey, privateKeyPem: pair.privateKey };
		generatedKeys.set(clientId, keys);
	}
	return keys;
}

function resolveClient(input: ClientSettingsInput, index: number): ClientSettings {
	const base = sandboxClient(index + 1);
	const merged: ClientSettings = {
		...base,
		...input,
		limits: { ...DEFAULT_LIMITS, ...input.limits },
		merchant: { ...base.merchant, ...input.merchant },
		wallets: (input.wallets ?? base.wallets).map((wallet) => ({ ...wallet })),
		entitlements: [...(input.entitlements ?? base.entitlements)],
	};
	if (!merged.rsaPrivateKeyPem || !merged.rsaPublicKeyPem) {
		const keys = rsaKeysFor(merged.clientId);
		merged.rsaPrivateKeyPem = keys.privateKeyPem;
		merged.rsaPublicKeyPem = keys.publicKeyPem;
	}
	return merged;
}

export function resolveConfig(partial: Partial<SandboxConfig> = {}): ResolvedConfig {
	const defaults = defaultSandboxConfig();
	const clientInputs = partial.clients && partial.clients.length > 0 ? partial.clients : defaults.clients;
	return {
		...defaults,
		...partial,
		clients: clientInputs.map(resolveClient),
		directory: partial.directory ?? defaults.directory,
		webhooks: { ...DEFAULT_WEBHOOK_DELIVERY, ...partial.webhooks },
	};
}

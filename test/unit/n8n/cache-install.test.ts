import { cacheInstallEnv, repositoryNpmConfigVars } from '../../../scripts/n8n/cache-install';
import { n8nInstallArgs } from '../../../scripts/n8n/install';

describe('scripts/n8n: installs into the cache are not the repository install', () => {
	it("the n8n install gets none of the repository's .npmrc settings that `npm run` exports, and keeps the caller's own", () => {
		const npmrc = '# comment\nignore-scripts=true\nlegacy-peer-deps=true\n; other comment\naudit=false\n';
		expect(repositoryNpmConfigVars(npmrc)).toEqual(['npm_config_ignore_scripts', 'npm_config_legacy_peer_deps', 'npm_config_audit']);
		const env = cacheInstallEnv({ npm_config_legacy_peer_deps: 'true', npm_config_ignore_scripts: 'true', npm_config_cache: '/tmp/npm-cache', PATH: '/bin' }, npmrc);
		expect(env).toEqual({ npm_config_cache: '/tmp/npm-cache', PATH: '/bin' });
	});

	it("this repository's .npmrc sets legacy-peer-deps, and the n8n install turns it off explicitly (a user's .npmrc may set it too)", () => {
		expect(repositoryNpmConfigVars()).toContain('npm_config_legacy_peer_deps');
		expect(n8nInstallArgs('2026-11-23')).toEqual(expect.arrayContaining(['--legacy-peer-deps=false', '--before=2026-11-23T23:59:59Z', '--ignore-scripts', '--omit=dev']));
	});
});

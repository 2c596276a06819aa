import { Container } from '@n8n/di';
import { SSHClientsManager } from 'n8n-core-v1/dist/execution-engine/ssh-clients-manager';

// n8n-core 1.x starts a 60-second cleanup timer for SSH tunnels with every node run and, unlike 2.x, does not
// unref it, so a test process would never exit. Shut the manager down after each test file, as n8n does on exit.
// Only the 1.x jest project loads this file; there `@n8n/di` is the copy n8n-core 1.x uses.
afterAll(() => {
	Container.get(SSHClientsManager).onShutdown();
});

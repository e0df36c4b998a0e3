/**
 * The parts of avatar-video/bullmq the relay runs, as a user of that entry would: the watch and delivery processors,
 * `watchJob`, `deliveryJobId` (which finds a watch's delivery), and the secret's rule (`secretProblem`, not in the
 * entry: the relay reads its secret from the environment). The one file of cli/ that imports bullmq/.
 */

export { secretProblem } from '../../bullmq/delivery.js';
export { createDeliveryProcessor, createWatchProcessor, deliveryJobId, watchJob } from '../../bullmq/index.js';

import { currentProfile } from './current';
import type { Profile, SandboxProfile } from './index';
import { specProfile } from './spec';

export function profileFor(name: SandboxProfile): Profile {
  return name === 'spec' ? specProfile : currentProfile;
}

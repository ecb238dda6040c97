// A second DMA API, spelled differently from <tpu/dma.h>, for testing the
// configurable API model (test/api2/acme.clang-tidy maps it to the roles).
//
// Differences from the reference API that the configuration must describe:
//   - the descriptor type is acme::DmaHandle;
//   - factories: copy_local / copy_to_peer (unstarted), start_local /
//     start_to_peer (already started);
//   - the general constructor takes the peer id and the peer semaphore as
//     pointers (nullptr = unset), at positions 3 and 5, and the peer kind at 4;
//   - methods: has_peer / kick(prio) / await_all / await_send / await_recv;
//   - the device id is acme::PeerId with kind acme::PeerKind::{kFlat, kGrid}
//     (kFlat: one integer, like kLogical; kGrid: coordinates, like kMesh), and
//     the remote factories take (PeerId, PeerKind) first;
//   - barriers: signal_peer(sem, peer, kind) signals by one, bump(count, sem)
//     signals the device itself, await_signals(count, sem) waits; my_rank()
//     and world_size() are the device's place on the one flat axis.
// Declarations only, like <tpu/dma.h>.
#ifndef ACME_DMA_H
#define ACME_DMA_H

#include <initializer_list>

namespace acme {

struct Buffer {};
struct Sem {};

enum class PeerKind { kGrid, kFlat };

class PeerId {
public:
  PeerId(int flat);                       // a flat (logical) peer number
  PeerId(std::initializer_list<int> grid);  // grid coordinates
};

class DmaHandle {
public:
  // The general form: peer and peer_sem both set (a copy to a peer) or both
  // null (a local copy).
  DmaHandle(Sem sem, Buffer src, Buffer dst, const PeerId *peer = nullptr,
            PeerKind peer_kind = PeerKind::kGrid, const Sem *peer_sem = nullptr);

  bool has_peer() const;       // built with a peer and a peer semaphore
  void kick(int prio = 0);     // prio 0 or 1; to a peer: only 0
  void await_all();            // both sides
  void await_send();           // to a peer only: waits on peer_sem
  void await_recv();           // waits on sem
};

DmaHandle copy_local(Buffer src, Buffer dst, Sem sem);
DmaHandle copy_to_peer(PeerId peer, PeerKind kind, Buffer src, Buffer dst, Sem sem,
                       Sem peer_sem);
DmaHandle start_local(Buffer src, Buffer dst, Sem sem);
DmaHandle start_to_peer(PeerId peer, PeerKind kind, Buffer src, Buffer dst, Sem sem,
                        Sem peer_sem);

// Barrier semaphores: signal_peer adds one to a peer's semaphore, bump adds
// count to this device's own, and await_signals takes count from it (blocking
// until it holds that many).
void signal_peer(Sem sem, PeerId peer, PeerKind kind = PeerKind::kGrid);
void bump(int count, Sem sem);
void await_signals(int count, Sem sem);

int my_rank();     // this device's rank: the same value everywhere in one call
int world_size();

}  // namespace acme

#endif  // ACME_DMA_H

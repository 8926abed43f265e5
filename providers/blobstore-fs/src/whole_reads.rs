//! The crates.io filesystem provider with reads sent in large chunks.
//!
//! Upstream streams a blob as the file reader's 4 KiB chunks, and wRPC carries every chunk as a
//! message of its own: a 31 KB map tile was eight messages, each awaited by the reading component
//! in turn. Map tiles are read by every map matcher and predictor invocation, so here a read is
//! gathered in the provider and sent in chunks of up to [`CHUNK_BYTES`] (one for any tile).
//! Everything else is the upstream provider's, unchanged.

use core::future::Future;
use core::pin::Pin;

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt as _};
use wasmcloud_provider_blobstore_fs::FsProvider;
use wasmcloud_provider_sdk::Context;
use wrpc_interface_blobstore::bindings::exports::wrpc::blobstore::blobstore::Handler;
use wrpc_interface_blobstore::bindings::wrpc::blobstore::types::{ContainerMetadata, ObjectId, ObjectMetadata};

/// Largest chunk a read is sent in: well under NATS's default 1 MiB message limit with wRPC's
/// framing around it.
pub const CHUNK_BYTES: usize = 512 * 1024;

type Data = Pin<Box<dyn Stream<Item = Bytes> + Send>>;
type Status = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

#[derive(Clone, Default)]
pub struct WholeReads(pub FsProvider);

/// `chunks` regrouped into chunks of `max` bytes (the last one shorter), in order.
pub fn regroup(chunks: impl Stream<Item = Bytes> + Send + 'static, max: usize) -> impl Stream<Item = Bytes> + Send {
    futures::stream::unfold((Box::pin(chunks), BytesMut::new(), false), move |(mut chunks, mut buf, done)| async move {
        if done {
            return None;
        }
        while buf.len() < max {
            match chunks.next().await {
                Some(chunk) => buf.extend_from_slice(&chunk),
                None if buf.is_empty() => return None,
                None => return Some((buf.split().freeze(), (chunks, buf, true))),
            }
        }
        let out = buf.split_to(max).freeze();
        Some((out, (chunks, buf, false)))
    })
}

impl Handler<Option<Context>> for WholeReads {
    async fn get_container_data(
        &self,
        cx: Option<Context>,
        id: ObjectId,
        start: u64,
        end: u64,
    ) -> anyhow::Result<Result<(Data, Status), String>> {
        Ok(self
            .0
            .get_container_data(cx, id, start, end)
            .await?
            .map(|(data, status)| (Box::pin(regroup(data, CHUNK_BYTES)) as Data, status)))
    }

    async fn clear_container(&self, cx: Option<Context>, name: String) -> anyhow::Result<Result<(), String>> {
        self.0.clear_container(cx, name).await
    }
    async fn container_exists(&self, cx: Option<Context>, name: String) -> anyhow::Result<Result<bool, String>> {
        self.0.container_exists(cx, name).await
    }
    async fn create_container(&self, cx: Option<Context>, name: String) -> anyhow::Result<Result<(), String>> {
        self.0.create_container(cx, name).await
    }
    async fn delete_container(&self, cx: Option<Context>, name: String) -> anyhow::Result<Result<(), String>> {
        self.0.delete_container(cx, name).await
    }
    async fn get_container_info(
        &self,
        cx: Option<Context>,
        name: String,
    ) -> anyhow::Result<Result<ContainerMetadata, String>> {
        self.0.get_container_info(cx, name).await
    }
    async fn list_container_objects(
        &self,
        cx: Option<Context>,
        name: String,
        limit: Option<u64>,
        offset: Option<u64>,
    ) -> anyhow::Result<Result<(Pin<Box<dyn Stream<Item = Vec<String>> + Send>>, Status), String>> {
        self.0.list_container_objects(cx, name, limit, offset).await
    }
    async fn copy_object(
        &self,
        cx: Option<Context>,
        src: ObjectId,
        dest: ObjectId,
    ) -> anyhow::Result<Result<(), String>> {
        self.0.copy_object(cx, src, dest).await
    }
    async fn delete_object(&self, cx: Option<Context>, id: ObjectId) -> anyhow::Result<Result<(), String>> {
        self.0.delete_object(cx, id).await
    }
    async fn delete_objects(
        &self,
        cx: Option<Context>,
        container: String,
        objects: Vec<String>,
    ) -> anyhow::Result<Result<(), String>> {
        self.0.delete_objects(cx, container, objects).await
    }
    async fn get_object_info(
        &self,
        cx: Option<Context>,
        id: ObjectId,
    ) -> anyhow::Result<Result<ObjectMetadata, String>> {
        self.0.get_object_info(cx, id).await
    }
    async fn has_object(&self, cx: Option<Context>, id: ObjectId) -> anyhow::Result<Result<bool, String>> {
        self.0.has_object(cx, id).await
    }
    async fn move_object(
        &self,
        cx: Option<Context>,
        src: ObjectId,
        dest: ObjectId,
    ) -> anyhow::Result<Result<(), String>> {
        self.0.move_object(cx, src, dest).await
    }
    async fn write_container_data(
        &self,
        cx: Option<Context>,
        id: ObjectId,
        data: Data,
    ) -> anyhow::Result<Result<Status, String>> {
        self.0.write_container_data(cx, id, data).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regrouped(sizes: &[usize], max: usize) -> Vec<Vec<u8>> {
        let mut next = 0u8;
        let chunks: Vec<Bytes> = sizes
            .iter()
            .map(|n| {
                Bytes::from(
                    (0..*n)
                        .map(|_| {
                            next = next.wrapping_add(1);
                            next
                        })
                        .collect::<Vec<u8>>(),
                )
            })
            .collect();
        futures::executor::block_on(regroup(futures::stream::iter(chunks), max).map(|b| b.to_vec()).collect())
    }

    #[test]
    fn small_reads_become_one_chunk_and_large_ones_chunks_of_the_limit_in_order() {
        let one = regrouped(&[4096; 8], CHUNK_BYTES);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].len(), 8 * 4096);
        let many = regrouped(&[3, 4, 5], 5);
        assert_eq!(many.iter().map(Vec::len).collect::<Vec<_>>(), [5, 5, 2]);
        let flat: Vec<u8> = many.concat();
        assert_eq!(flat, (1..=12).collect::<Vec<u8>>());
        assert!(regrouped(&[], 5).is_empty());
        assert!(regrouped(&[0, 0], 5).is_empty());
    }
}

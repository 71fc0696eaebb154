"""The engine's SQLite pool hands out the connection given back last."""

from pathlib import Path

from bot.db.engine import create_engine


async def test_the_connection_given_back_last_is_taken_next(tmp_path: Path) -> None:
    # A SQLite connection drops its page cache when another connection wrote since its last
    # read: taking the pool's connections in turn made every create read its pages afresh.
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'pool.db'}")
    try:
        first, second = engine.connect(), engine.connect()
        await first.start()
        await second.start()
        drivers = [
            (await connection.get_raw_connection()).driver_connection
            for connection in (first, second)
        ]
        await first.close()
        await second.close()
        for _ in range(3):
            async with engine.connect() as connection:
                taken = (await connection.get_raw_connection()).driver_connection
                assert taken is drivers[1]
    finally:
        await engine.dispose()

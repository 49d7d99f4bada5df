select `t1`.`status` as `c0`, count(*) as `c1`, sum(`t1`.`views`) as `c2`
from `articles` as `t1`
group by `t1`.`status`
order by `c0` is null, `c0`
limit ?
-- values: [100]

select cast(`t1`.`data` as char) as `c0`, count(*) as `c1`, count(distinct `t1`.`data`) as `c2`
from `articles` as `t1`
group by `t1`.`data`
order by `c0` is null, `c0`
limit ?
-- values: [100]
